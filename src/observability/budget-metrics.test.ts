import { describe, expect, it } from 'vitest';
import { PlatformRejected } from '../errors.js';
import { createMetrics } from './metrics.js';

const throttledError = new PlatformRejected('too many', {
  details: {
    operation: 'remindSignatories',
    platformCode: '429',
    rawCode: '429',
    platformName: 'TOO MANY REQUESTS',
    platformMessage: '',
    httpStatus: 429,
    family: 'throttled',
  },
});

describe('budget metrics', () => {
  it('when attempts wait for tokens and the platform throttles, then the waits are timed by class and the throttling counted by operation', async () => {
    const { onCall, registry } = createMetrics();
    const call = { operation: 'remindSignatories', attempt: 0, durationMs: 5 };
    onCall({
      ...call,
      priority: 'bulk',
      tokenWaitMs: 1_500,
      httpStatus: 429,
      error: throttledError,
    });
    onCall({ ...call, priority: 'interactive', tokenWaitMs: 20, httpStatus: 200 });
    onCall({ ...call, tokenWaitMs: 0, httpStatus: 200 });
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_rate_token_wait_seconds_sum{class="bulk"} 1.5');
    expect(text).toContain('signing_bridge_rate_token_wait_seconds_count{class="interactive"} 1');
    expect(text).toContain('signing_bridge_rate_token_wait_seconds_count{class="none"} 1');
    expect(text).toContain(
      'signing_bridge_platform_throttled_total{operation="remindSignatories"} 1',
    );
  });

  it('when the share, the rate in force and the classes load are reported, then the gauges follow', async () => {
    const { observer, budget, registry } = createMetrics();
    budget.share(6.67);
    budget.rateInForce(3.33);
    observer.load?.(4, 30, [
      { name: 'interactive', running: 3, pending: 5 },
      { name: 'bulk', running: 1, pending: 25 },
    ]);
    const text = await registry.metrics();
    expect(text).toContain('signing_bridge_budget_share_rps 6.67');
    expect(text).toContain('signing_bridge_rate_limit_rps 3.33');
    expect(text).toContain('signing_bridge_class_backlog{class="bulk"} 25');
    expect(text).toContain('signing_bridge_class_running{class="interactive"} 3');
  });
});
