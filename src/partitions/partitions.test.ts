import pino, { type Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { asRead } from '../../test/support/inbound-record.js';
import { KafkaWriteFailed, LedgerUnwritable } from '../errors.js';
import type { OutboundRecord, TopicPartitions } from '../kafka/index.js';
import { Ledger, markerRecord } from '../ledger/index.js';
import { Outbox } from '../producers/index.js';
import { fetchPlan } from './fetch-plan.js';
import { Lease } from './lease.js';
import { CHECKPOINT_METADATA } from './ledger-upkeep.js';
import type { PartitionTask } from './partition-task.js';
import { Partitions } from './partitions.js';

const topics = { commands: ['cmd.a', 'cmd.b'], ledger: 'ledger' };

/** A driver over fakes: a consumer whose fetch state is kept, an outbox whose sends Kafka takes. */
function driver(
  options: {
    refuse?: boolean;
    live?: string[];
    onShareChange?: (held: number) => void;
    leaseMs?: number;
    log?: Logger;
  } = {},
) {
  const fetching = new Map<string, boolean>();
  const mark = (on: boolean) => (list: readonly TopicPartitions[]) => {
    for (const { topic, partitions } of list)
      for (const p of partitions) fetching.set(`${topic}/${p}`, on);
  };
  const consumer = {
    liveInstances: vi.fn(async () => new Set(['me', ...(options.live ?? [])])),
    committed: vi.fn(
      async () => new Map([['ledger', { offset: '0', metadata: CHECKPOINT_METADATA }]]),
    ),
    offsetForTime: vi.fn(async () => '0'),
    positions: vi.fn(async () => [
      { topic: 'cmd.a', partition: 0, logStart: '0', highWatermark: '9', committed: '5' },
      { topic: 'cmd.b', partition: 0, logStart: '2', highWatermark: '9' },
      { topic: 'cmd.a', partition: 1, logStart: '0', highWatermark: '9', committed: '7' },
    ]),
    seek: vi.fn(),
    commit: vi.fn(async () => {}),
    pause: vi.fn(mark(false)),
    resume: vi.fn(mark(true)),
  };
  const written: OutboundRecord[] = [];
  const outbox = new Outbox({
    sink: async (records) => {
      if (options.refuse && records.some((r) => r.topic === 'ledger')) {
        throw new KafkaWriteFailed('denied', { details: { kafkaError: 'X', permanent: true } });
      }
      written.push(...records);
    },
    lingerMs: 0,
    maxRecords: 100,
    maxBatchBytes: 1_000_000,
    retry: { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 },
  });
  const clearQueued = vi.fn();
  const onLedgerUnwritable = vi.fn();
  const partitions = new Partitions({
    consumer,
    instance: 'me',
    topics,
    ledger: new Ledger('ledger'),
    outbox,
    lease: new Lease(options.leaseMs ?? 60_000),
    clearQueued,
    onLedgerUnwritable,
    onShareChange: options.onShareChange,
    settings: {
      handoverTimeoutMs: 60_000,
      abortGraceMs: 10,
      crashLoopLimit: 2,
      ledgerWindowMs: 60_000,
    },
    log: options.log ?? pino({ level: 'silent' }),
  });
  /** Reads back into the partition every marker this instance wrote there, as Kafka would. */
  const readLedger = (partition: number) => {
    const records = written.filter((r) => r.topic === 'ledger' && r.partition === partition);
    partitions.onLedgerBatch({
      topic: 'ledger',
      partition,
      records: records.map((r, offset) => asRead(r, { partition, offset, timestamp: 0 })),
      resolve: () => {},
    });
  };
  const isFetched = (topic: string, partition: number) =>
    fetching.get(`${topic}/${partition}`) === true;
  return {
    partitions,
    consumer,
    written,
    readLedger,
    isFetched,
    clearQueued,
    onLedgerUnwritable,
  };
}

/** The markers written: `acquired` (an acquisition's first), `active` (its take-over), `released`. */
const markers = (written: OutboundRecord[], kind: 'acquired' | 'active' | 'released') =>
  written.filter((r) => {
    const value = String(r.value);
    const active = value.includes('"active":true');
    if (kind === 'active') return active;
    return r.topic === 'ledger' && !active && value.includes(`"kind":"${kind}"`);
  });

describe('Partitions', () => {
  it('when partitions are assigned, then each marks and restores its ledger before its commands are fetched and may start', async () => {
    const { partitions, written, readLedger, isFetched } = driver();
    partitions.onAssignment([0, 1]);
    expect(isFetched('cmd.a', 0)).toBe(false);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(2));
    await vi.waitFor(() => expect(isFetched('ledger', 0)).toBe(true));
    expect(isFetched('cmd.a', 0)).toBe(false);
    readLedger(0);
    readLedger(1);
    await partitions.whenRestored();
    expect([isFetched('cmd.a', 0), isFetched('cmd.b', 1), isFetched('ledger', 0)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(partitions.task(0)?.canStart).toBe(true);
  });

  it('when the ledger refuses the acquired marker for good, then the partition reports it and nothing of it is fetched or started', async () => {
    const { partitions, isFetched, onLedgerUnwritable } = driver({ refuse: true });
    partitions.onAssignment([0]);
    await partitions.whenRestored();
    expect(onLedgerUnwritable).toHaveBeenCalledWith(expect.any(LedgerUnwritable));
    expect([isFetched('cmd.a', 0), isFetched('ledger', 0)]).toEqual([false, false]);
    expect(partitions.task(0)?.canStart).toBe(false);
  });

  it('when an active partition is revoked, then its queue is dropped, its running command may finish, and then it commits and writes released', async () => {
    const { partitions, consumer, written, readLedger, clearQueued } = driver();
    partitions.onAssignment([0, 1]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(2));
    readLedger(0);
    readLedger(1);
    await partitions.whenRestored();
    const task = partitions.task(0);
    task?.receive('cmd.a', '5', 'k', () => true);
    task?.startRun();
    partitions.onAssignment([1]);
    expect(clearQueued).toHaveBeenCalledWith(0);
    expect(task?.canStart).toBe(false);
    task?.finish('cmd.a', '5');
    expect(consumer.commit).not.toHaveBeenCalled();
    task?.endRun();
    await vi.waitFor(() => expect(markers(written, 'released')).toHaveLength(1));
    expect(consumer.commit).toHaveBeenCalledWith([{ topic: 'cmd.a', partition: 0, offset: '6' }]);
    expect(task?.revoked).toBe(true);
    expect(partitions.task(0)).toBeUndefined();
  });

  it('when a previous holder in the group has not released, then the partition waits for its released marker', async () => {
    const { partitions, written, readLedger } = driver({ live: ['old'] });
    written.push({
      topic: 'ledger',
      partition: 0,
      key: ' ownership old',
      value: '{"kind":"acquired","instance":"old","nonce":"x"}',
    });
    partitions.onAssignment([0]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(2));
    readLedger(0);
    expect(partitions.task(0)?.canStart).toBe(false);
    written.push({
      topic: 'ledger',
      partition: 0,
      key: ' ownership old',
      value: '{"kind":"released","instance":"old","nonce":"y"}',
    });
    readLedger(0);
    await partitions.whenRestored();
    expect(partitions.task(0)?.canStart).toBe(true);
  });

  it("when a command topic's log ends before the end its ledger saw (the topic was created again), then the ledger's marks of positions in it are dropped and those of other topics kept; the logs as found are written", async () => {
    const { partitions, written, readLedger } = driver();
    // Partition 0's logs are now cmd.a [0, 9) and cmd.b [2, 9) (the consumer's positions).
    written.push(
      {
        topic: 'ledger',
        partition: 0,
        key: ' logs',
        value: '{"cmd.a":{"start":"0","end":"21"},"cmd.b":{"start":"2","end":"6"}}',
      },
      { topic: 'ledger', partition: 0, key: ' forwarded', value: '{"cmd.a":"20","cmd.b":"5"}' },
      {
        topic: 'ledger',
        partition: 0,
        key: ' ownership old',
        value:
          '{"kind":"acquired","instance":"old","nonce":"x","inHand":{"cmd.a":"15","cmd.b":"7"}}',
      },
    );
    partitions.onAssignment([0]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(2));
    readLedger(0);
    await partitions.whenRestored();
    const task = partitions.task(0);
    expect(task?.forwardedUpTo('cmd.a')).toBe(-1n);
    expect(task?.forwardedUpTo('cmd.b')).toBe(5n);
    await vi.waitFor(() => {
      const last = (key: string) => written.filter((r) => r.key === key).at(-1)?.value;
      expect(JSON.parse(String(last(' logs')))).toEqual({
        'cmd.a': { start: '0', end: '9' },
        'cmd.b': { start: '2', end: '9' },
      });
      expect(JSON.parse(String(last(' forwarded')))).toEqual({ 'cmd.b': '5' });
      // What the crashed holder had in hand is recovered only where its log is the same.
      expect(JSON.parse(String(last(' ownership me'))).recovering).toEqual({ 'cmd.b': '7' });
    });
  });

  it('when partitions turn active, then they count in the share; a revoked one counts while it drains and is given up just before its released marker is written', async () => {
    const shares: Array<{ held: number; releasedMarkers: number }> = [];
    let written: OutboundRecord[] = [];
    const onShareChange = (held: number) =>
      shares.push({ held, releasedMarkers: markers(written, 'released').length });
    const d = driver({ onShareChange });
    written = d.written;
    d.partitions.onAssignment([0, 1]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(2));
    expect(shares).toEqual([]);
    d.readLedger(0);
    d.readLedger(1);
    await d.partitions.whenRestored();
    expect(shares.map((s) => s.held)).toEqual([1, 2]);
    d.partitions.task(0)?.startRun();
    d.partitions.onAssignment([1]);
    // Draining: still held.
    expect(shares.at(-1)?.held).toBe(2);
    d.partitions.task(0)?.endRun();
    await vi.waitFor(() => expect(markers(written, 'released')).toHaveLength(1));
    expect(shares.at(-1)).toEqual({ held: 1, releasedMarkers: 0 });
  });

  it('when a partition is revoked before it turned active, then it never counted in the share', async () => {
    const onShareChange = vi.fn();
    const { partitions, written } = driver({ onShareChange });
    partitions.onAssignment([0]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(1));
    partitions.onAssignment([]);
    await vi.waitFor(() => expect(markers(written, 'released')).toHaveLength(1));
    expect(onShareChange).not.toHaveBeenCalled();
  });

  it('when stopping, then every partition is released and nothing new is acquired', async () => {
    const { partitions, written, readLedger } = driver();
    partitions.onAssignment([0, 1]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(2));
    readLedger(0);
    readLedger(1);
    await partitions.releaseAll(1_000);
    expect(markers(written, 'released')).toHaveLength(2);
    partitions.onAssignment([0, 1, 2]);
    expect(markers(written, 'acquired')).toHaveLength(2);
  });
});

describe('the lease on the partitions', () => {
  /** A driver whose partitions 0 and 1 are active, under a 6 s lease. */
  async function active() {
    const d = driver({ leaseMs: 6_000 });
    d.partitions.onAssignment([0, 1]);
    await vi.waitFor(() => expect(markers(d.written, 'acquired')).toHaveLength(2));
    d.readLedger(0);
    d.readLedger(1);
    await d.partitions.whenRestored();
    await vi.waitFor(() => expect(markers(d.written, 'active')).toHaveLength(2));
    return d;
  }

  /**
   * Active partitions whose lease ran out, then a heartbeat regained it: the committed offsets
   * are being asked for, and Kafka answers when `answer` is called.
   */
  async function regainedAsking() {
    vi.useFakeTimers({
      shouldAdvanceTime: true,
      toFake: ['setTimeout', 'clearTimeout', 'performance'],
    });
    const d = await active();
    vi.advanceTimersByTime(6_000);
    let answer: () => void = () => {};
    const offsets = await d.consumer.positions();
    d.consumer.positions.mockImplementationOnce(
      () => new Promise((resolve) => (answer = () => resolve(offsets))),
    );
    d.partitions.onHeartbeat();
    return { ...d, answer: () => answer() };
  }

  it('when a partition turns active, then its acquisition says so in an active marker before any of its commands may run', async () => {
    const { written } = await active();
    expect(markers(written, 'active').map((r) => r.partition)).toEqual([0, 1]);
  });

  it('when the group has not answered for the lease, then every partition is given up at once: runs aborted, queues and entries dropped, nothing written or committed, nothing claimed at the next join', async () => {
    vi.useFakeTimers({
      shouldAdvanceTime: true,
      toFake: ['setTimeout', 'clearTimeout', 'performance'],
    });
    const { partitions, written, consumer, clearQueued } = await active();
    const run = partitions.task(0)?.startRun();
    const before = written.length;
    vi.advanceTimersByTime(6_000);
    expect(run?.aborted).toBe(true);
    expect(String(run?.reason)).toContain('lease on it ended');
    expect([partitions.task(0), partitions.task(1)]).toEqual([undefined, undefined]);
    expect(clearQueued.mock.calls.map(([p]) => p).sort()).toEqual([0, 1]);
    await partitions.commit();
    expect(consumer.commit).not.toHaveBeenCalled();
    expect(written.slice(before)).toEqual([]);
    expect(partitions.held()).toEqual([]);
  });

  it('when the coordinator answers a heartbeat again after the loss, then each command partition goes back to its committed offset (or its start) and the assignment is acquired afresh', async () => {
    vi.useFakeTimers({
      shouldAdvanceTime: true,
      toFake: ['setTimeout', 'clearTimeout', 'performance'],
    });
    const { partitions, written, consumer, readLedger } = await active();
    vi.advanceTimersByTime(6_000);
    partitions.onHeartbeat();
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(4));
    expect(consumer.seek.mock.calls).toEqual([
      ['cmd.a', 0, '5'],
      ['cmd.b', 0, '2'],
      ['cmd.a', 1, '7'],
    ]);
    readLedger(0);
    readLedger(1);
    await vi.waitFor(() => expect(partitions.task(0)?.canStart).toBe(true));
    expect(partitions.held()).toEqual([0, 1]);
  });

  it('when a heartbeat regained the lease but the committed offsets are still being asked for, and the lease is lost and regained by a join meanwhile, then the late answer neither replaces what the join acquired nor moves its fetch', async () => {
    const { partitions, written, consumer, readLedger, answer } = await regainedAsking();
    vi.advanceTimersByTime(6_000);
    partitions.onAssignment([0, 1]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(4));
    readLedger(0);
    readLedger(1);
    await vi.waitFor(() => expect(partitions.task(0)?.canStart).toBe(true));
    const joined = partitions.task(0);
    const run = joined?.startRun();
    answer();
    await vi.advanceTimersByTimeAsync(100);
    expect(partitions.task(0)).toBe(joined);
    expect(run?.aborted).toBe(false);
    expect(consumer.seek.mock.calls.filter(([topic]) => topic !== 'ledger')).toEqual([]);
    expect(markers(written, 'acquired')).toHaveLength(4);
  });

  it('when a heartbeat regained the lease but the committed offsets are still being asked for, and a rebalance takes a partition away meanwhile, then only what is still assigned is acquired', async () => {
    const { partitions, written, answer } = await regainedAsking();
    partitions.onAssignment([0]);
    answer();
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(3));
    await vi.advanceTimersByTimeAsync(100);
    expect(partitions.task(1)).toBeUndefined();
    expect(markers(written, 'acquired').map((r) => r.partition)).toEqual([0, 1, 0]);
  });

  it('when an acquisition has not taken over after 30 s, then the phase it waits in is said, and said again every 30 s until it does', async () => {
    vi.useFakeTimers({
      shouldAdvanceTime: true,
      toFake: ['setTimeout', 'clearTimeout', 'performance'],
    });
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const { partitions, written, readLedger } = driver({ log, leaseMs: 600_000 });
    partitions.onAssignment([0]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(1));
    const said = () => lines.filter((l) => l.includes('partition not acquired yet'));
    vi.advanceTimersByTime(29_000);
    expect(said()).toEqual([]);
    vi.advanceTimersByTime(2_000);
    expect(said().map((l) => JSON.parse(l).phase)).toEqual(['reading']);
    vi.advanceTimersByTime(30_000);
    expect(said().map((l) => JSON.parse(l).phase)).toEqual(['reading', 'reading']);
    readLedger(0);
    await vi.waitFor(() => expect(partitions.task(0)?.canStart).toBe(true));
    vi.advanceTimersByTime(60_000);
    expect(said()).toHaveLength(2);
  });

  it("when a command topic's log went back under the bridge (created again), then every partition it holds is given up, writing nothing, goes back to its committed offsets (or its start) and is acquired afresh", async () => {
    const { partitions, written, consumer, readLedger } = await active();
    const old = partitions.task(0) as PartitionTask;
    const run = old.startRun();
    const before = written.length;
    partitions.logWentBack(old, 'cmd.a', '0');
    expect(run.aborted).toBe(true);
    expect([partitions.task(0), partitions.task(1)]).toEqual([undefined, undefined]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(4));
    expect(written.slice(before).filter((r) => !String(r.value).includes('acquired'))).toEqual([]);
    expect(consumer.seek.mock.calls).toEqual([
      ['cmd.a', 0, '5'],
      ['cmd.b', 0, '2'],
      ['cmd.a', 1, '7'],
    ]);
    readLedger(0);
    readLedger(1);
    await vi.waitFor(() => expect(partitions.task(0)?.canStart).toBe(true));
    expect(partitions.task(0)).not.toBe(old);
  });

  it('when the process was frozen past the lease and a join comes before its timer, then what it held is given up first: a partition kept is acquired afresh, not carried on', async () => {
    let now = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const { partitions, written } = await active();
    const kept = partitions.task(0);
    now += 15_000;
    expect(kept?.canStart).toBe(false);
    expect(kept?.revoked).toBe(true);
    expect(partitions.held()).toEqual([]);
    partitions.onAssignment([0]);
    expect(partitions.task(0)).not.toBe(kept);
    expect(partitions.task(1)).toBeUndefined();
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(3));
    expect(markers(written, 'released')).toEqual([]);
  });

  it('when the Kafka consumer crashes, then every partition is given up at once, and the next join acquires its assignment afresh', async () => {
    const { partitions, written } = await active();
    const run = partitions.task(1)?.startRun();
    partitions.onCrash();
    expect(run?.aborted).toBe(true);
    expect(partitions.task(1)).toBeUndefined();
    partitions.onAssignment([1]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(3));
    expect(markers(written, 'released')).toEqual([]);
  });
});

describe('fetchPlan', () => {
  const phases = new Map([
    [0, 'active' as const],
    [1, 'reading' as const],
    [2, 'draining' as const],
  ]);
  const none = {
    all: new Set<'breaker' | 'stopping'>(),
    topics: new Set<string>(),
  };

  it('fetches the commands of active partitions and the ledger of restoring ones, and pauses the rest', () => {
    expect(fetchPlan(phases, topics, none)).toEqual({
      resume: [
        { topic: 'cmd.a', partitions: [0] },
        { topic: 'cmd.b', partitions: [0] },
        { topic: 'ledger', partitions: [1] },
      ],
      pause: [
        { topic: 'cmd.a', partitions: [1, 2] },
        { topic: 'cmd.b', partitions: [1, 2] },
        { topic: 'ledger', partitions: [0, 2] },
      ],
    });
  });

  it('when a command topic is held back, then only that topic pauses; when the breaker holds, every command topic does and the ledger still restores', () => {
    const backpressure = fetchPlan(phases, topics, { ...none, topics: new Set(['cmd.a']) });
    expect(backpressure.resume).toContainEqual({ topic: 'cmd.b', partitions: [0] });
    expect(backpressure.pause).toContainEqual({ topic: 'cmd.a', partitions: [0, 1, 2] });
    const breaker = fetchPlan(phases, topics, { ...none, all: new Set(['breaker' as const]) });
    expect(breaker.resume).toEqual([{ topic: 'ledger', partitions: [1] }]);
  });

  it('when the partition counts changed, then the command partitions from the count at start on are not fetched, those below still are', () => {
    const grown = new Map([...phases, [4, 'active' as const]]);
    const held = fetchPlan(grown, topics, { ...none, unplaceableFrom: 4 });
    expect(held.resume).toEqual([
      { topic: 'cmd.a', partitions: [0] },
      { topic: 'cmd.b', partitions: [0] },
      { topic: 'ledger', partitions: [1] },
    ]);
    expect(held.pause).toContainEqual({ topic: 'cmd.a', partitions: [4, 1, 2] });
  });
});

describe('a partition careful after a crash loop', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when the previous holder died recovering, then the partition is careful and the group is asked every few seconds whether that holder is back; once it is (it stalled), care ends, it is said once, and the asking stops', async () => {
    vi.useFakeTimers({
      shouldAdvanceTime: true,
      toFake: ['setTimeout', 'clearTimeout', 'performance'],
    });
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const { partitions, written, readLedger, consumer } = driver({ log });
    // Its last marker: it held partition 0, recovering what a holder before it had in hand.
    const recovering = { inHand: { 'cmd.a': '7' }, recovering: { 'cmd.a': '6' } };
    const marker = { kind: 'acquired' as const, instance: 'stalled', nonce: 'x', ...recovering };
    written.push(markerRecord('ledger', 0, marker));
    partitions.onAssignment([0]);
    await vi.waitFor(() => expect(markers(written, 'acquired')).toHaveLength(2));
    readLedger(0);
    await partitions.whenRestored();
    const task = partitions.task(0) as PartitionTask;
    expect(task.careful).toBe(true);
    const asked = consumer.liveInstances.mock.calls.length;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(consumer.liveInstances).toHaveBeenCalledTimes(asked + 1);
    expect(task.careful).toBe(true);

    consumer.liveInstances.mockResolvedValue(new Set(['me', 'stalled']));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(task.careful).toBe(false);
    const cleared = lines.filter((l) => String(l.msg).startsWith('suspected crash loop cleared'));
    expect(cleared).toEqual([
      expect.objectContaining({
        level: 30,
        partition: 0,
        instance: 'stalled',
        msg: 'suspected crash loop cleared: stalled is back in the group (it stalled, it did not die)',
      }),
    ]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(consumer.liveInstances).toHaveBeenCalledTimes(asked + 2);
  });
});
