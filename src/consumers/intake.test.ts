import { describe, expect, it } from 'vitest';
import { type InboundRecord, keyPartition } from '../kafka/index.js';
import { PartitionTask } from '../partitions/index.js';
import { topicNames } from '../schemas/messages/index.js';
import { Intake } from './intake.js';
import type { Job } from './job.js';
import type { KeyScheduler } from './key-scheduler.js';
import { DEFAULT_RECORD_LIMITS } from './record-limits.js';

const PARTITIONS = 12;
const topics = topicNames('t.');
const topic = topics.commands.remind;

/** bizIds murmur2 puts on `partition` (wanted true) or elsewhere (false). */
function bizIds(count: number, partition: number, wanted: boolean): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++) {
    const bizId = `biz-${i}`;
    if ((keyPartition(Buffer.from(bizId), PARTITIONS) === partition) === wanted) found.push(bizId);
  }
  return found;
}

function record(bizId: string, offset: number): InboundRecord {
  return {
    topic,
    partition: 0,
    offset: String(offset),
    key: Buffer.from(bizId),
    value: Buffer.from('{}'),
    headers: {},
    timestamp: '0',
  };
}

/** Intake on partition 0 of the remind topic, with a scheduler that notes what it is given. */
function intakeOnPartition0() {
  const pushed: { key: string; offset: string; forwardTo: number | undefined }[] = [];
  const scheduler = {
    isSaturated: () => false,
    laneHasRoom: () => true,
    push: (key: string, job: Job) =>
      pushed.push({ key, offset: job.record.offset, forwardTo: job.forwardTo }),
  } as unknown as KeyScheduler<Job>;
  const task = new PartitionTask(0, { phase: 'active' });
  const intake = new Intake({
    scheduler,
    partitions: {
      onLedgerBatch: () => {},
      holdTopics: () => {},
      task: () => task,
      rewind: () => [],
      seek: () => {},
      heldKeys: () => new Map(),
    },
    typeOf: new Map([[topic, 'remind']]),
    classOf: () => 'bulk',
    limits: DEFAULT_RECORD_LIMITS,
    commandPartitions: PARTITIONS,
    observer: {},
  });
  const deliver = (records: InboundRecord[]) =>
    intake.onBatch({ topic, partition: 0, records, resolve: () => {} });
  return { pushed, deliver };
}

describe('Intake', () => {
  it('when records are keyed for this partition, then each is queued under its bizId', () => {
    const { pushed, deliver } = intakeOnPartition0();
    const [a, b] = bizIds(2, 0, true) as [string, string];
    deliver([record(a, 0), record(b, 1)]);
    expect(pushed).toEqual([
      { key: a, offset: '0', forwardTo: undefined },
      { key: b, offset: '1', forwardTo: undefined },
    ]);
  });

  it('when records of different bizIds belong to other partitions, then they are queued under one key of the partition, in offset order, so one is forwarded after another', () => {
    const { pushed, deliver } = intakeOnPartition0();
    const [a, b] = bizIds(2, 0, false) as [string, string];
    const [home] = bizIds(1, 0, true) as [string];
    deliver([record(a, 0), record(home, 1), record(b, 2)]);
    const forwarded = pushed.filter((p) => p.forwardTo !== undefined);
    expect(forwarded.map((p) => p.offset)).toEqual(['0', '2']);
    expect(new Set(forwarded.map((p) => p.key))).toEqual(new Set([` forward ${topic}/0`]));
    expect(forwarded.map((p) => p.forwardTo)).toEqual([
      keyPartition(Buffer.from(a), PARTITIONS),
      keyPartition(Buffer.from(b), PARTITIONS),
    ]);
    expect(pushed[1]).toEqual({ key: home, offset: '1', forwardTo: undefined });
  });
});
