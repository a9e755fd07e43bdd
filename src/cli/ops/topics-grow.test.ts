import { describe, expect, it } from 'vitest';
import { type InboundRecord, keyPartition } from '../../kafka/index.js';
import { type LedgerEntries, planMoves } from './topics-grow.js';

const FROM = 4;
const TO = 8;

/** A bizId whose partition under TO is not the one it had under FROM. */
function movingKey(): string {
  for (let i = 0; ; i++) {
    const key = `biz-${i}`;
    if (keyPartition(Buffer.from(key), TO) !== keyPartition(Buffer.from(key), FROM)) return key;
  }
}

const key = movingKey();
const oldPartition = keyPartition(Buffer.from(key), FROM);
const newPartition = keyPartition(Buffer.from(key), TO);

function entry(partition: number, value: string, timestamp = '1000'): InboundRecord {
  return {
    topic: 'ledger',
    partition,
    offset: '0',
    key: Buffer.from(key),
    value: Buffer.from(value),
    headers: {},
    timestamp,
  };
}

const on = (...records: InboundRecord[]): LedgerEntries =>
  new Map([[key, new Map(records.map((r) => [r.partition, r]))]]);

describe('planMoves', () => {
  it('when an entry is on its old partition only, then it is copied to its new one and then deleted from the old', () => {
    const plan = planMoves('ledger', on(entry(oldPartition, 'E')), TO);
    expect(plan.copies).toEqual([
      { topic: 'ledger', partition: newPartition, key, value: Buffer.from('E') },
    ]);
    expect(plan.tombstones).toEqual([
      { topic: 'ledger', partition: oldPartition, key, value: null },
    ]);
  });

  it('when a run was cut off after the copy, then running again only deletes the old one, keeping the copy', () => {
    const plan = planMoves(
      'ledger',
      on(entry(oldPartition, 'E'), entry(newPartition, 'E', '2000')),
      TO,
    );
    expect(plan.copies).toEqual([]);
    expect(plan.tombstones).toEqual([
      { topic: 'ledger', partition: oldPartition, key, value: null },
    ]);
  });

  it('when a bridge wrote the entry on its new partition since, then that one is kept, even if older by timestamp', () => {
    const plan = planMoves(
      'ledger',
      on(entry(oldPartition, 'old', '5000'), entry(newPartition, 'new', '2000')),
      TO,
    );
    expect(plan.copies).toEqual([]);
    expect(plan.tombstones.map((t) => t.partition)).toEqual([oldPartition]);
  });

  it('when the entry is on its new partition alone (the move done), then nothing is written', () => {
    expect(planMoves('ledger', on(entry(newPartition, 'E')), TO)).toEqual({
      copies: [],
      tombstones: [],
    });
  });

  it('when stale entries are on two other partitions, then the newest is copied and both deleted', () => {
    const third = [...Array(TO).keys()].find((p) => p !== oldPartition && p !== newPartition) ?? 0;
    const plan = planMoves(
      'ledger',
      on(entry(oldPartition, 'older', '1000'), entry(third, 'newer', '3000')),
      TO,
    );
    expect(plan.copies.map((c) => c.value)).toEqual([Buffer.from('newer')]);
    expect(plan.tombstones.map((t) => t.partition).sort()).toEqual([oldPartition, third].sort());
  });
});
