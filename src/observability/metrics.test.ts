import { describe, expect, it } from 'vitest';
import { PlatformRejected, RequestNotSent } from '../errors.js';
import { createMetrics } from './metrics.js';

const call = { operation: 'createDraft', bizId: 'b-1' };
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
    observer.breakerStateChanged?.('open');
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
    onCall({
      ...call,
      attempt: 1,
      durationMs: 1,
      error: new RequestNotSent('x', { details: { ...call, reason: 'ECONNREFUSED' } }),
    });
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
