import { describe, expect, it } from 'vitest';
import { keyPartition } from './murmur2.js';
import { stallsOf } from './partition-health.js';
import type { PartitionHealth, TopicHealth } from './types.js';

/** A partition led by broker 1, its replicas 1, 2, 3 all in sync, but for what `state` says. */
const partition = (p: number, state: Partial<PartitionHealth> = {}): PartitionHealth => ({
  partition: p,
  leader: 1,
  replicas: [1, 2, 3],
  isr: [1, 2, 3],
  offlineReplicas: [],
  ...state,
});

/** The topic's partitions, brokers 1, 2 and 3 running but for those `brokers` leaves out. */
const topic = (
  partitions: PartitionHealth[],
  minInsyncReplicas = 2,
  brokers: number[] = [1, 2, 3],
): TopicHealth => ({ partitions, minInsyncReplicas, brokers });

const ledger = (p: number) => ({ topic: 'sb.ledger', partition: p, key: 'biz', value: '{}' });

describe('stallsOf', () => {
  it('when every partition written to has a leader and enough replicas in sync, then nothing stalls', () => {
    const health = new Map([['sb.ledger', topic([partition(0), partition(1, { isr: [1, 2] })])]]);
    expect(stallsOf([ledger(0), ledger(1)], health)).toEqual([]);
  });

  it('when a partition written to has no leader (its only replica stopped), then it stalls naming its brokers', () => {
    const health = new Map([
      ['sb.ledger', topic([partition(0), partition(1, { leader: -1, replicas: [2], isr: [] })], 1)],
    ]);
    expect(stallsOf([ledger(0), ledger(1)], health)).toEqual([
      {
        topic: 'sb.ledger',
        partition: 1,
        problem: 'no-leader',
        detail: expect.stringMatching(
          /^sb\.ledger partition 1 has no leader: its replicas on brokers 2, in sync none;/,
        ),
      },
    ]);
  });

  it('when fewer replicas are in sync than min.insync.replicas, then it stalls as NOT_ENOUGH_REPLICAS', () => {
    const health = new Map([['sb.ledger', topic([partition(0, { isr: [1] })], 2)]]);
    expect(stallsOf([ledger(0)], health)).toEqual([
      expect.objectContaining({
        partition: 0,
        problem: 'under-min-isr',
        detail: expect.stringContaining(
          '1 replica(s) in sync, below its min.insync.replicas 2 (NOT_ENOUGH_REPLICAS)',
        ),
      }),
    ]);
  });

  it('when a replica’s log directory failed, then it stalls as KAFKA_STORAGE_ERROR', () => {
    const health = new Map([['sb.ledger', topic([partition(0, { offlineReplicas: [3] })])]]);
    expect(stallsOf([ledger(0)], health)[0]).toMatchObject({
      problem: 'offline-replica',
      detail: expect.stringContaining('KAFKA_STORAGE_ERROR'),
    });
  });

  it('when a replica is offline because its broker is not running (KRaft lists a stopped broker’s replicas offline), then that is no failed disk: the stall is what the brokers left say, naming the broker not running', () => {
    const stopped = partition(0, { replicas: [2, 3], isr: [2], offlineReplicas: [3], leader: 2 });
    const health = new Map([['sb.ledger', topic([stopped], 2, [1, 2])]]);
    expect(stallsOf([ledger(0)], health)).toEqual([
      {
        topic: 'sb.ledger',
        partition: 0,
        problem: 'under-min-isr',
        detail: expect.stringMatching(
          /^sb\.ledger partition 0: 1 replica\(s\) in sync, below its min\.insync\.replicas 2 \(NOT_ENOUGH_REPLICAS\): replicas on brokers 2, 3, in sync 2, brokers 3 not running;/,
        ),
      },
    ]);
    const alone = partition(0, { replicas: [3], isr: [3], offlineReplicas: [3], leader: -1 });
    expect(stallsOf([ledger(0)], new Map([['sb.ledger', topic([alone], 2, [1, 2])]]))).toEqual([
      expect.objectContaining({
        problem: 'no-leader',
        detail: expect.stringContaining('replicas on brokers 3, in sync 3, brokers 3 not running;'),
      }),
    ]);
  });

  it('when the topic is gone (deleted), or has fewer partitions than written to, then that is the stall', () => {
    const health = new Map([['sb.ledger', topic([partition(0)])]]);
    const events = { topic: 'sb.events', key: 'biz', value: '{}' };
    expect(stallsOf([ledger(4), events], health)).toEqual([
      expect.objectContaining({ topic: 'sb.ledger', partition: 4, problem: 'partition-missing' }),
      expect.objectContaining({ topic: 'sb.events', problem: 'topic-missing' }),
    ]);
  });

  it('when a record has no partition, then the one its key hashes to is looked at, and only that one', () => {
    const partitions = Array.from({ length: 6 }, (_, p) => partition(p, { leader: -1 }));
    const health = new Map([['sb.events', topic(partitions)]]);
    const stalls = stallsOf([{ topic: 'sb.events', key: 'biz-7', value: '{}' }], health);
    expect(stalls.map((s) => s.partition)).toEqual([keyPartition(Buffer.from('biz-7'), 6)]);
  });
});
