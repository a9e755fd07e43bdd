/**
 * What to do after a run of a handler, from its outcome and the command's history alone:
 * publish its result, end it with a failure, or run it again after a delay. `now` is monotonic
 * (performance.now()): a step of the wall clock changes no deadline.
 */
import type { SigningBridgeError } from '../errors.js';
import type { Outcome, PendingEvent } from '../handlers/types.js';
import { type BackoffPolicy, fullJitterDelay } from '../retry/backoff.js';

/** What decide() reads of the bridge's settings. */
export interface DecisionSettings {
  /** Transient failures: total runs, and time since the first failure. */
  readonly retry: { maxAttempts: number; maxElapsedMs: number; policy: BackoffPolicy };
  /** The contract not found yet: how long to keep looking. */
  readonly precondition: { timeoutMs: number; policy: BackoffPolicy };
}

/** What earlier runs of one command ran into. */
export interface RunHistory {
  readonly transientFailures: number;
  readonly firstTransientAt?: number | undefined;
  readonly notFoundRuns: number;
  readonly firstNotFoundAt?: number | undefined;
  /** Runs an outage kept from the platform: they count against neither budget. */
  readonly outageRuns: number;
}

export const NO_HISTORY: RunHistory = { transientFailures: 0, notFoundRuns: 0, outageRuns: 0 };

type Ending =
  | { readonly outcome: 'failed'; readonly final: boolean }
  | { readonly outcome: 'gave-up'; readonly attempts: number }
  | { readonly outcome: 'precondition-timed-out'; readonly waitedMs: number };

export type Decision =
  | { readonly kind: 'complete'; readonly event: PendingEvent }
  | ({ readonly kind: 'end'; readonly step: string; readonly error: SigningBridgeError } & Ending)
  | {
      readonly kind: 'retry';
      readonly reason: 'transient' | 'not-found' | 'outage';
      readonly delayMs: number;
      readonly history: RunHistory;
    };

export function decide(
  outcome: Outcome,
  history: RunHistory,
  settings: DecisionSettings,
  now: number,
  random: () => number = Math.random,
): Decision {
  if (outcome.kind === 'completed') return { kind: 'complete', event: outcome.event };
  const { step, error } = outcome;
  if (outcome.kind === 'failed') {
    return { kind: 'end', outcome: 'failed', step, error, final: outcome.final };
  }
  if (outcome.reason === 'outage') {
    // For as long as it lasts: the circuit breaker holds the command meanwhile.
    const runs = history.outageRuns;
    return {
      kind: 'retry',
      reason: 'outage',
      delayMs: fullJitterDelay(settings.retry.policy, runs, random),
      history: { ...history, outageRuns: runs + 1 },
    };
  }
  if (outcome.reason === 'transient') {
    const { maxAttempts, maxElapsedMs, policy } = settings.retry;
    const failures = history.transientFailures + 1;
    const since = history.firstTransientAt ?? now;
    const left = maxElapsedMs - (now - since);
    if (failures >= maxAttempts || left <= 0) {
      return { kind: 'end', outcome: 'gave-up', step, error, attempts: failures };
    }
    return {
      kind: 'retry',
      reason: 'transient',
      delayMs: Math.min(fullJitterDelay(policy, failures - 1, random), left),
      history: { ...history, transientFailures: failures, firstTransientAt: since },
    };
  }
  const { timeoutMs, policy } = settings.precondition;
  const since = history.firstNotFoundAt ?? now;
  const waitedMs = now - since;
  if (waitedMs >= timeoutMs) {
    return { kind: 'end', outcome: 'precondition-timed-out', step, error, waitedMs };
  }
  return {
    kind: 'retry',
    reason: 'not-found',
    // The last look happens at the deadline, not after it.
    delayMs: Math.min(fullJitterDelay(policy, history.notFoundRuns, random), timeoutMs - waitedMs),
    history: { ...history, notFoundRuns: history.notFoundRuns + 1, firstNotFoundAt: since },
  };
}
