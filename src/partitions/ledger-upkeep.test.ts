import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { CommittedOffset, TopicPartitionOffset } from '../kafka/index.js';
import { Ledger } from '../ledger/index.js';
import { Outbox } from '../producers/index.js';
import { CHECKPOINT_METADATA, LedgerUpkeep } from './ledger-upkeep.js';

/** An upkeep over a consumer whose ledger partition 1 holds offsets 40 to 90. */
function upkeep(committed: CommittedOffset | undefined, fail = false) {
  const seeks: string[] = [];
  const commits: TopicPartitionOffset[] = [];
  const warnings: string[] = [];
  const consumer = {
    committed: vi.fn(async () => {
      if (fail) throw new Error('coordinator not available');
      return new Map(committed ? [['ledger', committed]] : []);
    }),
    positions: vi.fn(async () => [
      { topic: 'ledger', partition: 0, logStart: '0', highWatermark: '10' },
      { topic: 'ledger', partition: 1, logStart: '40', highWatermark: '90' },
    ]),
    offsetForTime: vi.fn(async () => '70'),
    seek: vi.fn((_topic: string, _partition: number, offset: string) => seeks.push(offset)),
    commit: vi.fn(async (offsets: readonly TopicPartitionOffset[]) => {
      commits.push(...offsets);
    }),
  };
  const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
  const outbox = new Outbox({
    sink: async () => {},
    lingerMs: 0,
    maxRecords: 100,
    maxBatchBytes: 1_000_000,
    retry: { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 },
  });
  const ledger = new Ledger('ledger');
  const upkept = new LedgerUpkeep({ consumer, ledger, outbox, windowMs: 60_000, log });
  return { upkept, seeks, commits, warnings };
}

describe('where a restore of a ledger partition starts', () => {
  it('when the group committed the bridge’s own checkpoint, then the restore starts there (nothing moved)', async () => {
    const { upkept, seeks, commits } = upkeep({ offset: '75', metadata: CHECKPOINT_METADATA });
    await upkept.position(1);
    expect(seeks).toEqual([]);
    expect(commits).toEqual([]);
  });

  it('when the committed offset was set by someone else (an operator reset the group’s offsets to the latest, a datetime, the earliest), then the restore reads the ledger from its start, says so, and that start becomes the checkpoint', async () => {
    for (const metadata of ['', null]) {
      const { upkept, seeks, commits, warnings } = upkeep({ offset: '90', metadata });
      await upkept.position(1);
      expect(seeks).toEqual(['40']);
      expect(commits).toEqual([
        { topic: 'ledger', partition: 1, offset: '40', metadata: CHECKPOINT_METADATA },
      ]);
      expect(warnings.join('')).toContain('was not set by the bridge');
    }
  });

  it('when the group has no checkpoint (a new group, offsets expired), then the restore reads the ledger from its start', async () => {
    const { upkept, seeks, commits, warnings } = upkeep(undefined);
    await upkept.position(1);
    expect(seeks).toEqual(['40']);
    expect(commits.map((c) => c.offset)).toEqual(['40']);
    expect(warnings).toEqual([]);
  });

  it('when the committed offset cannot be read, then the restore reads from offset 0, the start of a compacted log', async () => {
    const { upkept, seeks, commits } = upkeep(undefined, true);
    await upkept.position(1);
    expect(seeks).toEqual(['0']);
    expect(commits).toEqual([]);
  });

  it('when a sweep sets the checkpoint, then it is committed as the bridge’s own', async () => {
    const { upkept, commits } = upkeep(undefined);
    await upkept.sweep({ partition: 1, assertWritable: () => {}, assertSendable: () => {} }, []);
    expect(commits).toEqual([
      { topic: 'ledger', partition: 1, offset: '70', metadata: CHECKPOINT_METADATA },
    ]);
  });
});
