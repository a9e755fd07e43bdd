import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { BackoffPolicy } from './backoff.js';
import { type RetryInfo, type RetryOptions, retryWithBackoff, sleep } from './retry.js';

const policy: BackoffPolicy = { initialDelayMs: 100, maxDelayMs: 1_000, multiplier: 2 };

function options(overrides: Partial<RetryOptions> = {}): RetryOptions {
  return {
    maxAttempts: 5,
    policy,
    shouldRetry: () => true,
    sleep: async () => {},
    random: () => 0.5,
    ...overrides,
  };
}

/** An operation that fails `failures` times with the given errors, then resolves 'ok'. */
function failingTimes(failures: number, makeError = (n: number) => new Error(`fail ${n}`)) {
  return vi.fn(async (attempt: number) => {
    if (attempt < failures) throw makeError(attempt);
    return 'ok';
  });
}

describe('retryWithBackoff', () => {
  it('when the first attempt succeeds, then it resolves without sleeping', async () => {
    const wait = vi.fn(async () => {});
    const operation = failingTimes(0);
    await expect(retryWithBackoff(operation, options({ sleep: wait }))).resolves.toBe('ok');
    expect(operation).toHaveBeenCalledOnce();
    expect(wait).not.toHaveBeenCalled();
  });

  it('when attempts fail then succeed, then it passes 0-based attempts and sleeps full-jitter delays', async () => {
    const wait = vi.fn(async (_ms: number) => {});
    const retries: RetryInfo[] = [];
    const operation = failingTimes(3);
    const result = await retryWithBackoff(
      operation,
      options({ sleep: wait, onRetry: (info) => retries.push(info) }),
    );
    expect(result).toBe('ok');
    expect(operation.mock.calls.map(([attempt]) => attempt)).toEqual([0, 1, 2, 3]);
    expect(wait.mock.calls.map(([ms]) => ms)).toEqual([50, 100, 200]);
    expect(retries.map(({ attempt, delayMs }) => ({ attempt, delayMs }))).toEqual([
      { attempt: 0, delayMs: 50 },
      { attempt: 1, delayMs: 100 },
      { attempt: 2, delayMs: 200 },
    ]);
  });

  it('when attempts are exhausted, then it rethrows the last error unchanged', async () => {
    const errors: Error[] = [];
    const operation = failingTimes(99, (n) => {
      errors[n] = new Error(`fail ${n}`);
      return errors[n];
    });
    const thrown = await retryWithBackoff(operation, options({ maxAttempts: 3 })).catch((e) => e);
    expect(thrown).toBe(errors[2]);
    expect(operation).toHaveBeenCalledTimes(3);
  });

  it('when shouldRetry says no, then it rethrows that error at once', async () => {
    const business = new Error('business');
    const shouldRetry = vi.fn((error: unknown) => error !== business);
    const operation = vi.fn(async (attempt: number) => {
      throw attempt === 0 ? new Error('transient') : business;
    });
    await expect(retryWithBackoff(operation, options({ shouldRetry }))).rejects.toBe(business);
    expect(operation).toHaveBeenCalledTimes(2);
    expect(shouldRetry).toHaveBeenLastCalledWith(business, 1);
  });

  it('when maxAttempts is 1, then it never asks shouldRetry', async () => {
    const shouldRetry = vi.fn(() => true);
    await expect(
      retryWithBackoff(failingTimes(1), options({ maxAttempts: 1, shouldRetry })),
    ).rejects.toThrow('fail 0');
    expect(shouldRetry).not.toHaveBeenCalled();
  });

  it('when the signal is already aborted, then it rejects with its reason without calling the operation', async () => {
    const reason = new Error('shutting down');
    const operation = failingTimes(0);
    const promise = retryWithBackoff(operation, options({ signal: AbortSignal.abort(reason) }));
    await expect(promise).rejects.toBe(reason);
    expect(operation).not.toHaveBeenCalled();
  });

  it('when the signal aborts during the wait, then it rejects with the reason and stops', async () => {
    const controller = new AbortController();
    const reason = new Error('revoked');
    const operation = failingTimes(99);
    const promise = retryWithBackoff(
      operation,
      options({ signal: controller.signal, sleep, policy: { ...policy, initialDelayMs: 60_000 } }),
    );
    await vi.waitFor(() => expect(operation).toHaveBeenCalledOnce());
    controller.abort(reason);
    await expect(promise).rejects.toBe(reason);
    expect(operation).toHaveBeenCalledOnce();
  });

  it('when the operation fails because the signal aborted, then it rejects with the reason instead of retrying', async () => {
    const controller = new AbortController();
    const operation = vi.fn(async () => {
      controller.abort('stop');
      throw new Error('aborted request');
    });
    const promise = retryWithBackoff(operation, options({ signal: controller.signal }));
    await expect(promise).rejects.toBe('stop');
    expect(operation).toHaveBeenCalledOnce();
  });

  it('makes at most maxAttempts calls and sleeps once between each pair', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 10 }), fc.nat(12), async (maxAttempts, fails) => {
        const wait = vi.fn(async () => {});
        const operation = failingTimes(fails);
        await retryWithBackoff(operation, options({ maxAttempts, sleep: wait })).catch(() => {});
        const calls = Math.min(maxAttempts, fails + 1);
        expect(operation).toHaveBeenCalledTimes(calls);
        expect(wait).toHaveBeenCalledTimes(calls - 1);
      }),
    );
  });
});

describe('sleep', () => {
  it('resolves after the delay', async () => {
    const started = performance.now();
    await sleep(5);
    expect(performance.now() - started).toBeGreaterThanOrEqual(4);
  });

  it('when the signal aborts, then it rejects with the signal reason', async () => {
    const controller = new AbortController();
    const reason = new Error('abort');
    const promise = sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(promise).rejects.toBe(reason);
  });

  it('when the signal is already aborted, then it rejects with the signal reason', async () => {
    await expect(sleep(60_000, AbortSignal.abort('gone'))).rejects.toBe('gone');
  });
});
