import { describe, expect, it } from 'vitest';
import { inboundRecord } from '../../../test/support/inbound-record.js';
import { TopicsGrowRefused } from '../../errors.js';
import {
  type InboundRecord,
  type KafkaTools,
  keyPartition,
  type OutboundRecord,
} from '../../kafka/index.js';
import type { TopicNames } from '../../schemas/messages/index.js';
import { growTopics, type LedgerEntries, planMoves } from './topics-grow.js';

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

const entry = (partition: number, value: string, timestamp = '1000') =>
  inboundRecord({ topic: 'ledger', partition, key, value, timestamp });

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

/** Command topics `cmd.a`, `cmd.b` and the ledger with the counts given, the group's state set. */
function cluster(counts: Record<string, number>, uncommittedOn: Record<string, number[]> = {}) {
  const created: Array<{ topics: readonly string[]; count: number }> = [];
  const written: OutboundRecord[] = [];
  const admin = {
    describeTopics: async (topics: readonly string[]) =>
      new Map(topics.map((topic) => [topic, { topic, partitions: counts[topic] }])),
    groupMembers: async () => 0,
    committed: async () => new Map<number, string>(),
    ranges: async (topic: string) =>
      Array.from({ length: counts[topic] ?? 0 }, (_, partition) => ({
        partition,
        start: '0',
        end: uncommittedOn[topic]?.includes(partition) ? '1' : '0',
      })),
    createPartitions: async (topics: readonly string[], count: number) => {
      created.push({ topics, count });
    },
    disconnect: async () => {},
  };
  const tools = {
    clusterAdmin: async () => admin,
    reader: () => ({
      start: async (onRecords: (records: InboundRecord[]) => void) =>
        onRecords([{ ...entry(oldPartition, 'E'), topic: 'ledger' }]),
      done: Promise.resolve(),
    }),
    positionedProducer: async () => ({
      send: async (records: OutboundRecord[]) => {
        written.push(...records);
        return [];
      },
      disconnect: async () => {},
    }),
  } as unknown as KafkaTools;
  return { tools, created, written };
}

const topics = { commands: { a: 'cmd.a', b: 'cmd.b' }, ledger: 'ledger' } as unknown as TopicNames;

describe('growTopics', () => {
  it('when the command topics alone were grown and only their new partitions lag, then it grows the ledger alone and moves the entry', async () => {
    const { tools, created, written } = cluster(
      { 'cmd.a': TO, 'cmd.b': TO, ledger: FROM },
      { 'cmd.a': [FROM, TO - 1] },
    );
    expect(await growTopics(tools, topics, 'g', TO)).toEqual({
      grown: ['ledger'],
      moved: 1,
      lag: {},
    });
    expect(created).toEqual([{ topics: ['ledger'], count: TO }]);
    expect(written.map((r) => [r.partition, r.value === null])).toEqual([
      [newPartition, false],
      [oldPartition, true],
    ]);
  });

  it('when a partition below the smallest count lags, then it is refused for lag, naming it, and nothing changes', async () => {
    const { tools, created, written } = cluster(
      { 'cmd.a': TO, 'cmd.b': TO, ledger: FROM },
      { 'cmd.b': [FROM - 1, FROM] },
    );
    const refused = growTopics(tools, topics, 'g', TO);
    await expect(refused).rejects.toBeInstanceOf(TopicsGrowRefused);
    await expect(refused).rejects.toMatchObject({
      details: { reason: 'lag', lag: { [`cmd.b/${FROM - 1}`]: 1 } },
    });
    expect(created).toEqual([]);
    expect(written).toEqual([]);
  });

  it('when a partition below the smallest count lags and the lag is accepted, then it grows, moves the entry and reports the lag', async () => {
    const { tools, created, written } = cluster(
      { 'cmd.a': TO, 'cmd.b': TO, ledger: FROM },
      { 'cmd.b': [FROM - 1, FROM] },
    );
    expect(await growTopics(tools, topics, 'g', TO, { acceptLag: true })).toEqual({
      grown: ['ledger'],
      moved: 1,
      lag: { [`cmd.b/${FROM - 1}`]: 1 },
    });
    expect(created).toEqual([{ topics: ['ledger'], count: TO }]);
    expect(written).toHaveLength(2);
  });

  it('when N is below a topic’s count, then it is refused as smaller', async () => {
    const { tools } = cluster({ 'cmd.a': TO, 'cmd.b': FROM, ledger: FROM });
    await expect(growTopics(tools, topics, 'g', TO - 1)).rejects.toMatchObject({
      details: { reason: 'smaller' },
    });
  });

  it('when every topic has N already, then nothing grows, lag is not asked, and the entry still moves', async () => {
    const { tools, created, written } = cluster(
      { 'cmd.a': TO, 'cmd.b': TO, ledger: TO },
      { 'cmd.a': [0] },
    );
    expect(await growTopics(tools, topics, 'g', TO)).toEqual({ grown: [], moved: 1, lag: {} });
    expect(created).toEqual([]);
    expect(written).toHaveLength(2);
  });
});
