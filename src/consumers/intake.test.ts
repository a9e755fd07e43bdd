import { describe, expect, it } from 'vitest';
import { heldLease } from '../../test/support/held-lease.js';
import { inboundRecord } from '../../test/support/inbound-record.js';
import { type InboundRecord, keyPartition } from '../kafka/index.js';
import { LedgerReader } from '../ledger/index.js';
import { CrashGuard } from '../partitions/crash-guard.js';
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

const record = (bizId: string, offset: number) =>
  inboundRecord({ topic, offset, key: bizId, value: '{}' });

/**
 * Intake on partition 0 of the remind topic, with a scheduler that notes what it is given and
 * gives each scheduling key room for `bound` commands not ended.
 */
function intakeOnPartition0(
  task = new PartitionTask(0, { phase: 'active' }, heldLease),
  bound = Infinity,
) {
  const pushed: { key: string; offset: string; forwardTo: number | undefined }[] = [];
  const ended = new Set<string>();
  const inHand = (key: string) => pushed.filter((p) => p.key === key && !ended.has(p.offset));
  const scheduler = {
    isSaturated: () => false,
    laneHasRoom: (key: string) => inHand(key).length < bound,
    push: (key: string, job: Job) =>
      pushed.push({ key, offset: job.record.offset, forwardTo: job.forwardTo }),
  } as unknown as KeyScheduler<Job>;
  const seeks: string[] = [];
  const heldBack: { bizId: string; offset: string }[] = [];
  const wentBack: string[] = [];
  const intake = new Intake({
    scheduler,
    partitions: {
      onLedgerBatch: () => {},
      holdTopics: () => {},
      task: () => task,
      rewind: (_topic, key) => {
        const offset = task.rewindFor(topic, key);
        if (offset !== undefined) seeks.push(offset);
        return offset === undefined ? [] : [0];
      },
      seek: (_topic, _partition, offset) => seeks.push(offset),
      heldKeys: () => new Map(),
      logWentBack: (_task, _topic, offset) => wentBack.push(offset),
    },
    typeOf: new Map([[topic, 'remind']]),
    classOf: () => 'bulk',
    limits: DEFAULT_RECORD_LIMITS,
    commandPartitions: PARTITIONS,
    observer: { keyHeldBack: ({ bizId, offset }) => heldBack.push({ bizId, offset }) },
  });
  const deliver = (records: InboundRecord[]) =>
    intake.onBatch({ topic, partition: 0, records, resolve: () => {} });
  /** The command ends, as the runner ends it; its key is told once below half its room. */
  const end = (offset: string) => {
    ended.add(offset);
    task.finish(topic, offset);
    const { key } = pushed.find((p) => p.offset === offset) as (typeof pushed)[number];
    if (inHand(key).length < Math.ceil(bound / 2)) intake.laneRelieved(key, 'remind');
  };
  const offsetsOf = (key: string) => pushed.filter((p) => p.key === key).map((p) => p.offset);
  return { pushed, deliver, end, offsetsOf, seeks, heldBack, wentBack, task };
}

/** A task of partition 0 careful after a crash loop over the remind topic up to `until`. */
function carefulTask(until: bigint): PartitionTask {
  const task = new PartitionTask(0, { phase: 'active' }, heldLease);
  const guard = new CrashGuard({
    partition: 0,
    ledgerTopic: 'ledger',
    marker: { kind: 'acquired', instance: 'me', nonce: 'n' },
    outbox: { write: async () => {} } as never,
    owner: { assertSendable() {} },
    maxDeaths: 2,
    onRefused: () => {},
    liveInstances: async () => new Set(['me']),
  });
  task.acquire(guard, new LedgerReader({ instance: 'me', nonce: 'n' }), 0);
  task.recover(new Map([[topic, until]]), ['dead'], undefined);
  return task;
}

describe('Intake', () => {
  it('when a record comes below what the partition committed (its topic was created again under the bridge), then nothing of the batch is taken and the partition is told its log went back', () => {
    const { pushed, deliver, end, task, wentBack } = intakeOnPartition0();
    const [a] = bizIds(1, 0, true) as [string];
    deliver([record(a, 4), record(a, 5)]);
    end('4');
    end('5');
    task.committed(topic, '6');
    deliver([record(a, 0), record(a, 1)]);
    expect(pushed.map((p) => p.offset)).toEqual(['4', '5']);
    expect(wentBack).toEqual(['0']);
  });

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

  it('when a partition has its share of records to forward in hand, then later ones of any bizId are left in Kafka, its own bizIds go on, and the forwarded ones are read again in offset order once half ended', () => {
    const { deliver, end, offsetsOf, seeks, heldBack, task } = intakeOnPartition0(undefined, 2);
    const [a, b] = bizIds(2, 0, false) as [string, string];
    const [home] = bizIds(1, 0, true) as [string];
    const forward = ` forward ${topic}/0`;
    deliver([a, b, home, b, a, home].map((bizId, offset) => record(bizId, offset)));
    expect(offsetsOf(forward)).toEqual(['0', '1']);
    expect(offsetsOf(home)).toEqual(['2', '5']);
    expect(heldBack).toEqual([{ bizId: forward, offset: '3' }]);
    end('0');
    end('2');
    end('5');
    // Offset 1 is still in hand: below half of the share, not yet read again.
    expect(seeks).toEqual([]);
    expect(task.committable()).toEqual([{ topic, partition: 0, offset: '1' }]);
    end('1');
    expect(seeks).toEqual(['3']);
    expect(task.committable()).toEqual([{ topic, partition: 0, offset: '3' }]);
    deliver([b, a, home].map((bizId, i) => record(bizId, 3 + i)));
    expect(offsetsOf(forward)).toEqual(['0', '1', '3', '4']);
    expect(offsetsOf(home)).toEqual(['2', '5']);
  });

  it('when the partition is careful after a crash loop, then its records keep their bizIds as keys, each bounded on its own (care holds their runs, not their scheduling)', () => {
    const task = carefulTask(5n);
    const { deliver, offsetsOf, heldBack } = intakeOnPartition0(task, 2);
    const [a, b] = bizIds(2, 0, true) as [string, string];
    deliver([a, b, a, a].map((bizId, offset) => record(bizId, offset)));
    expect(task.careful).toBe(true);
    expect([offsetsOf(a), offsetsOf(b)]).toEqual([['0', '2'], ['1']]);
    expect(heldBack).toEqual([{ bizId: a, offset: '3' }]);
  });
});
