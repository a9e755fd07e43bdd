import { afterEach, describe, expect, it, vi } from 'vitest';
import { KafkaWriteFailed } from '../errors.js';
import { Readiness } from './readiness.js';
import { WriteWatch, type WriteWatchOptions } from './write-watch.js';

const GRACE_MS = 5_000;

function watched(diagnose: WriteWatchOptions['diagnose'] = async () => []) {
  const readiness = new Readiness();
  const log = { warn: vi.fn(), error: vi.fn(), info: vi.fn() };
  const onChange = vi.fn();
  const onStalls = vi.fn();
  const onFailure = vi.fn();
  const watch = new WriteWatch({
    readiness,
    log: log as never,
    graceMs: GRACE_MS,
    onChange,
    diagnose,
    onStalls,
    onFailure,
  });
  return { readiness, log, onChange, onStalls, onFailure, watch };
}

const failure = (message: string) =>
  new KafkaWriteFailed(`writing to Kafka failed: ${message}`, {
    details: { kafkaError: 'KafkaJSNumberOfRetriesExceeded', permanent: false },
  });

describe('WriteWatch', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when sends fail for longer than the grace, then kafka-writes is held naming the last error, logged once at error, until a send is answered, logged once at info', () => {
    vi.useFakeTimers();
    const { readiness, log, onChange, watch } = watched();
    watch.failed(failure('Connection error: connect ECONNREFUSED'), 0, 500);
    vi.advanceTimersByTime(GRACE_MS - 1);
    expect(readiness.reasons()).toEqual([]);
    watch.failed(failure('The coordinator is not available'), 1, 1_000);
    vi.advanceTimersByTime(1);
    expect(readiness.reasons()).toEqual([
      'kafka-writes: writing to Kafka failed: The coordinator is not available',
    ]);
    watch.failed(failure('Connection error: connect ECONNREFUSED'), 2, 2_000);
    vi.advanceTimersByTime(GRACE_MS * 3);
    expect(readiness.reasons()).toEqual([
      'kafka-writes: writing to Kafka failed: Connection error: connect ECONNREFUSED',
    ]);
    expect(log.error).toHaveBeenCalledOnce();
    expect(log.error.mock.calls[0]?.[0]).toMatchObject({ failingForMs: GRACE_MS });
    expect(log.warn).toHaveBeenCalledTimes(3);
    expect(onChange.mock.calls).toEqual([[true]]);

    watch.ended(true);
    expect(readiness.reasons()).toEqual([]);
    expect(log.info).toHaveBeenCalledOnce();
    expect(log.info.mock.calls[0]).toEqual([
      { failedForMs: GRACE_MS * 4 },
      'writing to Kafka works again',
    ]);
    expect(onChange.mock.calls).toEqual([[true], [false]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when a failed send goes through within the grace (the producer replaced after a coordinator moved), then readiness never changes and nothing but the failure is logged', () => {
    vi.useFakeTimers();
    const { readiness, log, onChange, watch } = watched();
    watch.failed(failure('There is no transaction coordinator: NOT_COORDINATOR'), 0, 300);
    vi.advanceTimersByTime(1_200);
    watch.ended(true);
    vi.advanceTimersByTime(GRACE_MS * 2);
    expect(readiness.reasons()).toEqual([]);
    expect(log.warn).toHaveBeenCalledOnce();
    expect(log.error).not.toHaveBeenCalled();
    expect(log.info).not.toHaveBeenCalled();
    expect(onChange).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when the writes that failed are given up (their partitions left), then kafka-writes is released, and a later failure starts a new grace', () => {
    vi.useFakeTimers();
    const { readiness, log, watch } = watched();
    watch.failed(failure('Connection error'), 0, 500);
    vi.advanceTimersByTime(GRACE_MS);
    watch.ended(false);
    expect(readiness.reasons()).toEqual([]);
    expect(log.info.mock.calls[0]?.[1]).toContain('given up');

    watch.failed(failure('Connection error'), 0, 500);
    vi.advanceTimersByTime(GRACE_MS - 1);
    expect(readiness.reasons()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(readiness.reasons()).toHaveLength(1);
    expect(log.error).toHaveBeenCalledTimes(2);
  });

  it('when an error message is long, then /readyz names its first 300 characters', () => {
    vi.useFakeTimers();
    const { readiness, watch } = watched();
    watch.failed(new Error('x'.repeat(1_000)), 0, 500);
    vi.advanceTimersByTime(GRACE_MS);
    expect(readiness.reasons()).toEqual([`kafka-writes: ${'x'.repeat(300)}…`]);
  });

  it('when writes keep failing, then the partitions they are stuck on are named in /readyz, logged once at error and reported, looked at again every 30 s, and forgotten once a write goes through', async () => {
    vi.useFakeTimers();
    const ledgerRecord = { topic: 'sb.ledger', partition: 3, key: 'biz', value: '{}' };
    const noLeader = {
      topic: 'sb.ledger',
      partition: 3,
      problem: 'no-leader' as const,
      detail: 'sb.ledger partition 3 has no leader: its replicas on brokers 2, in sync none',
    };
    const diagnose = vi.fn(async () => [noLeader]);
    const { readiness, log, onStalls, onFailure, watch } = watched(diagnose);
    const stuck = new KafkaWriteFailed('writing to Kafka failed: There is no leader', {
      details: { kafkaError: 'LEADER_NOT_AVAILABLE', permanent: false },
    });
    watch.failed(stuck, 0, 500, [ledgerRecord]);
    expect(onFailure).toHaveBeenCalledWith('LEADER_NOT_AVAILABLE');
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(diagnose).toHaveBeenCalledWith([ledgerRecord]);
    expect(readiness.reasons()).toEqual([
      `kafka-writes: writing to Kafka failed: There is no leader; ${noLeader.detail}`,
    ]);
    expect(onStalls.mock.calls).toEqual([
      [[{ topic: 'unknown', partition: 'unknown', problem: 'unexplained' }]],
      [[{ topic: 'sb.ledger', partition: '3', problem: 'no-leader' }]],
    ]);
    expect(log.error.mock.calls.map(([fields]) => fields.stalls)).toEqual([
      undefined,
      [noLeader.detail],
    ]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(diagnose).toHaveBeenCalledTimes(2);
    // The same stall: neither logged nor reported again.
    expect(log.error).toHaveBeenCalledTimes(2);
    expect(onStalls).toHaveBeenCalledTimes(2);

    watch.ended(true);
    expect(readiness.reasons()).toEqual([]);
    expect(onStalls).toHaveBeenLastCalledWith([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when the cluster cannot be asked, then the cause names the error alone and the stall stays unexplained', async () => {
    vi.useFakeTimers();
    const { readiness, log, onStalls, watch } = watched(async () => {
      throw new Error('no broker answered');
    });
    watch.failed(failure('Connection error'), 0, 500, []);
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(readiness.reasons()).toEqual([
      'kafka-writes: writing to Kafka failed: Connection error',
    ]);
    expect(log.warn).toHaveBeenCalledTimes(2);
    expect(onStalls.mock.calls).toEqual([
      [[{ topic: 'unknown', partition: 'unknown', problem: 'unexplained' }]],
    ]);
    watch.ended(false);
  });
});
