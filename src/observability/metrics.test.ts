import { describe, expect, it } from 'vitest';
import { PlatformRejected, RequestNotSent } from '../errors.js';
import { createMetrics } from './metrics.js';

const call = { operation: 'createDraft', bizId: 'b-1', tokenWaitMs: 0 };
const notSent = {
  ...call,
  attempt: 1,
  durationMs: 1,
  error: new RequestNotSent('x', { details: { ...call, reason: 'ECONNREFUSED' } }),
};
const end = {
  type: 'remind',
  attempts: 1,
  record: { topic: 'commands.remind', partition: 0, offset: '7' },
} as const;

describe('createMetrics', () => {
  it('when commands end, then they are counted and timed by type and outcome', async () => {
    const { observer, registry } = createMetrics();
    observer.commandFinished?.({ ...end, outcome: 'completed', durationMs: 120 });
    observer.commandFinished?.({ ...end, outcome: 'failed', durationMs: 30 });
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_commands_total{type="remind",outcome="completed"} 1');
    expect(text).toContain('signing_bridge_commands_total{type="remind",outcome="failed"} 1');
    expect(text).toMatch(
      /signing_bridge_command_duration_seconds_count\{type="remind",outcome="completed"\} 1/,
    );
  });

  it('when the bridge reports its load, pauses and breaker, then the gauges follow', async () => {
    const { observer, registry } = createMetrics();
    observer.load?.(3, 40);
    observer.consumptionPaused?.(true, 'breaker');
    observer.breakerStateChanged?.('open', 'auth');
    observer.retryScheduled?.({ type: 'approve', reason: 'not-found', delayMs: 10 });
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_in_flight 3');
    expect(text).toContain('signing_bridge_pending 40');
    expect(text).toContain('signing_bridge_consumption_paused{reason="breaker"} 1');
    expect(text).toContain('signing_bridge_circuit_state 2');
    expect(text).toContain(
      'signing_bridge_retries_scheduled_total{type="approve",reason="not-found"} 1',
    );
  });

  it('when the client reports calls, then they are counted by operation and outcome', async () => {
    const { onCall, registry } = createMetrics();
    const rejected = new PlatformRejected('x', {
      details: {
        ...call,
        platformCode: '1112',
        rawCode: '1112',
        platformName: 'DUPLICATE BIZID',
        platformMessage: '',
        httpStatus: 200,
        family: 'business',
      },
    });
    onCall({ ...call, attempt: 0, durationMs: 12, httpStatus: 200 });
    onCall({ ...call, attempt: 0, durationMs: 5, httpStatus: 200, error: rejected });
    onCall(notSent);
    const text = await registry.metrics();
    expect(text).toContain(
      'signing_bridge_platform_calls_total{operation="createDraft",outcome="ok"} 1',
    );
    expect(text).toContain(
      'signing_bridge_platform_calls_total{operation="createDraft",outcome="business"} 1',
    );
    expect(text).toContain(
      'signing_bridge_platform_calls_total{operation="createDraft",outcome="not-sent"} 1',
    );
    expect(text).toContain(
      'signing_bridge_platform_call_duration_seconds_count{operation="createDraft"} 3',
    );
  });
});

describe('the metrics on-call needs', () => {
  const rejectedWith = (platformCode: string) =>
    new PlatformRejected('x', {
      details: {
        ...call,
        platformCode,
        rawCode: platformCode,
        platformName: undefined,
        platformMessage: '',
        httpStatus: 200,
        family: 'business',
      },
    });

  it('when scraped, then Node default metrics have their standard names and no gauge ends in _total', async () => {
    const { registry } = createMetrics();
    const metrics = await registry.getMetricsAsJSON();
    const names = metrics.map((m) => m.name);
    for (const name of [
      'process_start_time_seconds',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_active_handles',
    ]) {
      expect(names).toContain(name);
    }
    const misnamed = metrics.filter(
      (m) => String(m.type) !== 'counter' && m.name.endsWith('_total'),
    );
    expect(misnamed.map((m) => m.name)).toEqual([]);
    expect(names.filter((n) => n.startsWith('signing_bridge_nodejs_'))).toEqual([]);
  });

  it('when nothing was dead-lettered yet, then every type and reason is there at 0; a dead letter counts by its error code', async () => {
    const { observer, registry } = createMetrics();
    const before = await registry.metrics();
    expect(before).toContain(
      'signing_bridge_dead_letters_total{type="create-contract",reason="SB_ERR_COMMAND_INVALID"} 0',
    );
    expect(before).toContain(
      'signing_bridge_dead_letters_total{type="remind",reason="SB_ERR_COMMAND_CRASH_LOOP"} 0',
    );
    observer.deadLettered?.({ type: 'approve', reason: 'SB_ERR_COMMAND_LIMIT_EXCEEDED' });
    expect(await registry.metrics()).toContain(
      'signing_bridge_dead_letters_total{type="approve",reason="SB_ERR_COMMAND_LIMIT_EXCEEDED"} 1',
    );
  });

  it('when the platform answers, then answers count by code: a code of its table, 0 for success, other for a code it lacks; no answer counts nothing', async () => {
    const { onCall, registry } = createMetrics();
    onCall({ ...call, attempt: 0, durationMs: 1, httpStatus: 200 });
    onCall({ ...call, attempt: 0, durationMs: 1, httpStatus: 200, error: rejectedWith('1112') });
    onCall({ ...call, attempt: 0, durationMs: 1, httpStatus: 200, error: rejectedWith('4711') });
    onCall({ ...call, attempt: 0, durationMs: 1, httpStatus: 200, error: rejectedWith('4712') });
    onCall(notSent);
    const text = await registry.metrics();
    const answers = text.split('\n').filter((l) => l.startsWith('signing_bridge_platform_answers'));
    expect(answers).toEqual([
      'signing_bridge_platform_answers_total{operation="createDraft",code="0"} 1',
      'signing_bridge_platform_answers_total{operation="createDraft",code="1112"} 1',
      'signing_bridge_platform_answers_total{operation="createDraft",code="other"} 2',
    ]);
  });

  it('when partitions lags are reported, then each owned partition has its two lags, and a partition no longer reported loses its series', async () => {
    const { observer, registry } = createMetrics();
    const lag = (partition: number, committed: bigint, nextInHand: bigint) => ({
      topic: 't.remind',
      partition,
      highWatermark: 100n,
      committed,
      nextInHand,
    });
    observer.partitionLags?.([lag(0, 40n, 90n), lag(1, 100n, 100n)]);
    const first = await registry.metrics();
    expect(first).toContain('signing_bridge_consumer_lag{topic="t.remind",partition="0"} 60');
    expect(first).toContain(
      'signing_bridge_consumer_lag_unfetched{topic="t.remind",partition="0"} 10',
    );
    expect(first).toContain('signing_bridge_consumer_lag{topic="t.remind",partition="1"} 0');
    observer.partitionLags?.([lag(1, 95n, 100n)]);
    const second = await registry.metrics();
    expect(second).not.toContain('partition="0"');
    expect(second).toContain('signing_bridge_consumer_lag{topic="t.remind",partition="1"} 5');
  });

  it('when scraped, then ready, kafka_connected and lease_held say what the service says at that moment', async () => {
    let ready = false;
    let leaseHeld = false;
    const { registry } = createMetrics({
      ready: () => ready,
      kafkaConnected: () => true,
      leaseHeld: () => leaseHeld,
    });
    const before = await registry.metrics();
    expect(before).toContain('signing_bridge_ready 0');
    expect(before).toContain('signing_bridge_lease_held 0');
    ready = true;
    leaseHeld = true;
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_ready 1');
    expect(text).toContain('signing_bridge_kafka_connected 1');
    expect(text).toContain('signing_bridge_lease_held 1');
  });

  it('when the lease is lost, then leases_lost_total counts it by why; a regain counts nothing', async () => {
    const { observer, registry } = createMetrics();
    observer.leaseChanged?.(false, 'expired');
    observer.leaseChanged?.(true);
    observer.leaseChanged?.(false, 'crashed');
    observer.leaseChanged?.(false, 'expired');
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_leases_lost_total{reason="expired"} 2');
    expect(text).toContain('signing_bridge_leases_lost_total{reason="crashed"} 1');
  });

  it('when writes to Kafka start and stop failing, then kafka_writes_failing is 1 and back to 0, from 0 at the start', async () => {
    const { observer, registry } = createMetrics();
    expect(await registry.metrics()).toContain('signing_bridge_kafka_writes_failing 0');
    observer.kafkaWritesFailing?.(true);
    expect(await registry.metrics()).toContain('signing_bridge_kafka_writes_failing 1');
    observer.kafkaWritesFailing?.(false);
    expect(await registry.metrics()).toContain('signing_bridge_kafka_writes_failing 0');
  });

  it('when Kafka refuses writes until fixed and then takes them, then kafka_writes_refused names the code in force, and has no series after', async () => {
    const { observer, registry } = createMetrics();
    expect(await registry.metrics()).not.toContain('signing_bridge_kafka_writes_refused{');
    observer.kafkaWritesRefused?.('TOPIC_AUTHORIZATION_FAILED');
    observer.kafkaWritesRefused?.('INVALID_TIMESTAMP');
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_kafka_writes_refused{error="INVALID_TIMESTAMP"} 1');
    expect(text).not.toContain('error="TOPIC_AUTHORIZATION_FAILED"');
    observer.kafkaWritesRefused?.(undefined);
    expect(await registry.metrics()).not.toContain('signing_bridge_kafka_writes_refused{');
  });

  it('when sends fail and writes stall, then kafka_write_errors_total counts each by code and kafka_write_stalled names where, until a write goes through', async () => {
    const { observer, registry } = createMetrics();
    observer.kafkaWriteFailed?.('NOT_ENOUGH_REPLICAS');
    observer.kafkaWriteFailed?.('NOT_ENOUGH_REPLICAS');
    observer.kafkaWritesStalled?.([
      { topic: 'sb.ledger', partition: '3', problem: 'under-min-isr' },
      { topic: 'sb.events', partition: 'all', problem: 'topic-missing' },
    ]);
    let text = await registry.metrics();
    expect(text).toContain(
      'signing_bridge_kafka_write_errors_total{error="NOT_ENOUGH_REPLICAS"} 2',
    );
    expect(text).toContain(
      'signing_bridge_kafka_write_stalled{topic="sb.ledger",partition="3",problem="under-min-isr"} 1',
    );
    expect(text).toContain(
      'signing_bridge_kafka_write_stalled{topic="sb.events",partition="all",problem="topic-missing"} 1',
    );
    observer.kafkaWritesStalled?.([]);
    text = await registry.metrics();
    expect(text).not.toContain('signing_bridge_kafka_write_stalled{');
  });

  it('when the ledger size is reported, then ledger_bizids follows it', async () => {
    const { observer, registry } = createMetrics();
    observer.ledgerSize?.(1234);
    expect(await registry.metrics()).toContain('signing_bridge_ledger_bizids 1234');
  });

  it('when the ledger windows are reported, then the effective window follows per owned partition only, with the configured one', async () => {
    const { observer, registry } = createMetrics();
    observer.ledgerWindows?.(
      new Map([
        [0, 604_800],
        [3, 3_600],
      ]),
      604_800,
    );
    observer.ledgerWindows?.(new Map([[3, 3_601]]), 604_800);
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_ledger_effective_window_seconds{partition="3"} 3601');
    expect(text).not.toContain('signing_bridge_ledger_effective_window_seconds{partition="0"}');
    expect(text).toContain('signing_bridge_ledger_replay_window_seconds 604800');
  });

  it('when hot keys are reported, then the longest per-key queue and the keys held back follow, by type only', async () => {
    const { observer, registry } = createMetrics();
    observer.hotKeys?.([{ type: 'remind', longest: 50, heldBack: 2 }]);
    observer.keyHeldBack?.({ type: 'remind', bizId: 'b-1', partition: 0, offset: '7' });
    observer.keyRewound?.({ type: 'remind', partitions: 1 });
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_key_queue_longest{type="remind"} 50');
    expect(text).toContain('signing_bridge_keys_held_back{type="remind"} 2');
    expect(text).toContain('signing_bridge_key_holds_total{type="remind"} 1');
    expect(text).toContain('signing_bridge_key_rewinds_total{type="remind"} 1');
    expect(text).not.toContain('b-1');
  });
});
