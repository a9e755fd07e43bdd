/**
 * Exactly-once, a previous holder frozen in the middle of a transaction (issue 31, deliverable
 * 5: one platform call made twice in the stalled-instance test). Its outbox had handed kafkajs
 * a transaction holding its acquisition's `active` marker before the process stopped; a thawed
 * kafkajs goes on with it (Produce, EndTxn) without asking anyone, and the broker commits it
 * unless it has aborted it for its timeout already (that check runs only every 10 s). The late
 * `active` marker then stands after the successor's: every later restore takes the frozen
 * holder's acquisition for the owner and skips the successor's records as stale, a step
 * `started` among them, so the step's call is made again. Fencing the holder's transactional id
 * before the take-over aborts that transaction for good.
 */
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { asRead } from '../../test/support/inbound-record.js';
import type { OutboundRecord } from '../kafka/index.js';
import { entryRecord, Ledger, LedgerReader, markerRecord } from '../ledger/index.js';
import { Outbox } from '../producers/index.js';
import type { LedgerEntry } from '../schemas/messages/index.js';
import { Lease } from './lease.js';
import { CHECKPOINT_METADATA } from './ledger-upkeep.js';
import { Partitions } from './partitions.js';

const LEDGER = 'ledger';

/**
 * One ledger partition as Kafka keeps it for transactional producers: each record appended in
 * a transaction of its instance, read (read_committed) once committed and only up to the first
 * still open; an instance fenced has its open transaction aborted and may not append or commit.
 */
class TransactionalPartition {
  readonly #log: Array<{ record: OutboundRecord; by: string; state: 'open' | 'committed' }> = [];
  readonly #fenced = new Set<string>();

  append(by: string, records: readonly OutboundRecord[]): void {
    if (this.#fenced.has(by)) throw new Error(`${by} is fenced: its epoch is an old one`);
    for (const record of records) this.#log.push({ record, by, state: 'open' });
  }

  commit(by: string): void {
    if (this.#fenced.has(by)) throw new Error(`${by} is fenced: its epoch is an old one`);
    for (const entry of this.#log) if (entry.by === by) entry.state = 'committed';
  }

  fence(by: string): void {
    this.#fenced.add(by);
    for (let i = this.#log.length - 1; i >= 0; i--) {
      if (this.#log[i]?.by === by && this.#log[i]?.state === 'open') this.#log.splice(i, 1);
    }
  }

  /** What a read_committed reader reads, with each record's offset. */
  readCommitted(): Array<{ record: OutboundRecord; offset: number }> {
    const read: Array<{ record: OutboundRecord; offset: number }> = [];
    for (const [offset, { record, state }] of this.#log.entries()) {
      if (state === 'open') break;
      read.push({ record, offset });
    }
    return read;
  }
}

/** This instance ('me') over the partition; its own transactions commit at once. */
function successor(partition: TransactionalPartition, fence: (instance: string) => Promise<void>) {
  const outbox = new Outbox({
    sink: async (records) => {
      partition.append('me', records);
      partition.commit('me');
    },
    lingerMs: 0,
    maxRecords: 100,
    maxBatchBytes: 1_000_000,
    retry: { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 },
  });
  const partitions = new Partitions({
    consumer: {
      // The frozen holder is no longer in the group.
      liveInstances: async () => new Set(['me']),
      committed: async () => new Map([[LEDGER, { offset: '0', metadata: CHECKPOINT_METADATA }]]),
      offsetForTime: async () => '0',
      positions: async () => [],
      seek: () => {},
      commit: async () => {},
      pause: () => {},
      resume: () => {},
    },
    instance: 'me',
    topics: { commands: ['cmd'], ledger: LEDGER },
    ledger: new Ledger(LEDGER),
    outbox,
    lease: new Lease(60_000),
    clearQueued: () => {},
    onLedgerUnwritable: () => {},
    fence,
    settings: {
      handoverTimeoutMs: 60_000,
      abortGraceMs: 10,
      crashLoopLimit: 2,
      ledgerWindowMs: 60_000,
    },
    log: pino({ level: 'silent' }),
  });
  const readLedger = () =>
    partitions.onLedgerBatch({
      topic: LEDGER,
      partition: 0,
      records: partition
        .readCommitted()
        .map(({ record, offset }) => asRead(record, { partition: 0, offset, timestamp: 0 })),
      resolve: () => {},
    });
  return { partitions, outbox, readLedger };
}

/** This instance's markers committed so far: `acquired`, or `active` once it took over. */
function mine(ledger: TransactionalPartition): string[] {
  return ledger
    .readCommitted()
    .filter(({ record }) => record.key === ' ownership me')
    .map(({ record }) => (String(record.value).includes('"active":true') ? 'active' : 'acquired'));
}

const frozen = { kind: 'acquired', instance: 'frozen', nonce: 'frozen-acquisition' } as const;
const started: LedgerEntry = {
  done: [],
  open: [{ commandId: 'X', steps: { remind: { state: 'started' } } }],
};

describe('a previous holder frozen in the middle of a transaction (exactly-once)', () => {
  it('when it had not released the partition, then its transactional id is fenced before the take-over, so the transaction it committed once thawed never lands, and a later restore finds the successor as owner and its step started', async () => {
    const ledger = new TransactionalPartition();
    // The holder acquired the partition; then froze, its `active` marker handed to kafkajs.
    ledger.append('frozen', [markerRecord(LEDGER, 0, frozen)]);
    ledger.commit('frozen');
    const fenced: string[] = [];
    const { partitions, outbox, readLedger } = successor(ledger, async (instance) => {
      fenced.push(instance);
      ledger.fence(instance);
    });

    partitions.onAssignment([0]);
    await vi.waitFor(() => expect(mine(ledger)).toEqual(['acquired']));
    readLedger();
    // The take-over waits for its own `active` marker to come back.
    await vi.waitFor(() => expect(mine(ledger)).toContain('active'));
    readLedger();
    await partitions.whenRestored();
    const task = partitions.task(0);
    expect(task?.canStart).toBe(true);

    // The holder thaws: kafkajs goes on with the transaction it had begun (refused if fenced).
    let late: unknown;
    try {
      ledger.append('frozen', [markerRecord(LEDGER, 0, { ...frozen, active: true })]);
      ledger.commit('frozen');
    } catch (error) {
      late = error;
    }
    // The successor runs command X: its step is recorded started, then the call is made.
    await outbox.write([entryRecord(LEDGER, 0, 'biz', started, task?.acquisition)], task);

    // The partition's next owner restores it: X must be in doubt there, not new.
    const next = new LedgerReader({ instance: 'next', nonce: 'next-acquisition' });
    for (const { record, offset } of ledger.readCommitted()) {
      next.apply(asRead(record, { partition: 0, offset, timestamp: 0 }));
    }
    const entry = next.entries.get('biz');
    expect({
      stale: next.stale,
      entry: entry && JSON.parse(entry.slice(entry.indexOf('|') + 1)),
    }).toEqual({ stale: 0, entry: started });
    expect(fenced).toEqual(['frozen']);
    expect(String(late)).toMatch(/fenced/);
  });

  it('when fencing fails for a while (Kafka cannot be asked), then the partition waits and is not taken over until it succeeds', async () => {
    const ledger = new TransactionalPartition();
    ledger.append('frozen', [markerRecord(LEDGER, 0, frozen)]);
    ledger.commit('frozen');
    let failures = 1;
    const { partitions, readLedger } = successor(ledger, async (instance) => {
      if (failures-- > 0) throw new Error('the coordinator is not available');
      ledger.fence(instance);
    });

    partitions.onAssignment([0]);
    await vi.waitFor(() => expect(mine(ledger)).toEqual(['acquired']));
    readLedger();
    expect(partitions.task(0)?.phase).toBe('fencing');
    await vi.waitFor(() => expect(mine(ledger)).toEqual(['acquired', 'active']), {
      timeout: 3_000,
    });
    expect(partitions.task(0)?.canStart).toBe(false);
    readLedger();
    await partitions.whenRestored();
    expect(partitions.task(0)?.canStart).toBe(true);
  });
});
