import { setTimeout as delay } from 'node:timers/promises';
import { type BackoffPolicy, fullJitterDelay } from './backoff.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryInfo {
  error: unknown;
  /** The 0-based attempt that just failed. */
  attempt: number;
  /** How long we wait before the next attempt. */
  delayMs: number;
}

export interface RetryOptions {
  /** Total attempts including the first; 1 means no retry. */
  maxAttempts: number;
  policy: BackoffPolicy;
  shouldRetry: (error: unknown, attempt: number) => boolean;
  /** Must honour the signal for an abort during a wait to stop promptly. */
  sleep?: Sleep;
  random?: () => number;
  signal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
}

/** Waits `ms`; when the signal aborts, rejects with the signal's reason rather than an AbortError. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/**
 * Runs `operation` until it resolves, `shouldRetry` declines, or `maxAttempts` is spent;
 * then rethrows the last error unchanged. Attempts are 0-based. An aborted signal wins over
 * everything else: the call rejects with the signal's reason and makes no further attempt.
 */
export async function retryWithBackoff<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const { maxAttempts, policy, shouldRetry, signal, onRetry } = options;
  const { sleep: wait = sleep, random = Math.random } = options;
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await operation(attempt);
    } catch (error) {
      // The failure may be the abort itself surfacing from the operation.
      signal?.throwIfAborted();
      if (attempt + 1 >= maxAttempts || !shouldRetry(error, attempt)) throw error;
      const delayMs = fullJitterDelay(policy, attempt, random);
      onRetry?.({ error, attempt, delayMs });
      await wait(delayMs, signal);
    }
  }
}
