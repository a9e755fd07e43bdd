import { describe, expect, it } from 'vitest';
import { PlatformRejected, RequestNotSent, type SigningBridgeError } from '../errors.js';
import type { Outcome } from '../handlers/types.js';
import { type DecisionSettings, decide, NO_HISTORY, type RunHistory } from './retry-decision.js';

const settings: DecisionSettings = {
  retry: {
    maxAttempts: 3,
    maxElapsedMs: 10_000,
    policy: { initialDelayMs: 100, maxDelayMs: 1_000, multiplier: 2 },
  },
  precondition: {
    timeoutMs: 5_000,
    policy: { initialDelayMs: 200, maxDelayMs: 2_000, multiplier: 2 },
  },
};
const half = () => 0.5;
// Outcomes carry the catalogue's base type, as handlers narrow caught errors to it.
const anError = (error: SigningBridgeError<object>) => error as SigningBridgeError;
const transientError = anError(
  new RequestNotSent('refused', {
    details: { operation: 'createDraft', reason: 'ECONNREFUSED' },
  }),
);
const notFoundError = anError(
  new PlatformRejected('no contract', {
    details: {
      operation: 'addDocumentByFile',
      platformCode: '1001',
      rawCode: '1001',
      platformName: 'CONTRACT NOT FOUND',
      platformMessage: 'not found',
      httpStatus: 200,
      family: 'not-found',
    },
  }),
);
const transient: Outcome = {
  kind: 'retry',
  reason: 'transient',
  step: 'draft',
  error: transientError,
};
const notFound: Outcome = { kind: 'retry', reason: 'not-found', step: 'doc', error: notFoundError };

describe('decide', () => {
  it('when the handler completed, then its event is published', () => {
    const event = { type: 'signingbridge.reminder.sent', step: 'remind', data: {} } as const;
    const decision = decide({ kind: 'completed', event: event as never }, NO_HISTORY, settings, 0);
    expect(decision).toEqual({ kind: 'complete', event });
  });

  it('when the platform refused for good, then the command ends as failed at once', () => {
    const outcome: Outcome = { kind: 'failed', step: 'draft', error: notFoundError, final: true };
    expect(decide(outcome, NO_HISTORY, settings, 0)).toMatchObject({
      kind: 'end',
      outcome: 'failed',
      step: 'draft',
    });
  });

  it('when a transient failure comes first, then it retries after a full-jitter delay and remembers when it began', () => {
    expect(decide(transient, NO_HISTORY, settings, 1_000, half)).toEqual({
      kind: 'retry',
      reason: 'transient',
      delayMs: 50,
      history: { ...NO_HISTORY, transientFailures: 1, firstTransientAt: 1_000 },
    });
  });

  it('when transient failures reach maxAttempts, then the command gives up with the attempts made', () => {
    const history: RunHistory = { ...NO_HISTORY, transientFailures: 2, firstTransientAt: 0 };
    expect(decide(transient, history, settings, 500)).toMatchObject({
      kind: 'end',
      outcome: 'gave-up',
      attempts: 3,
      error: transientError,
    });
  });

  it('when maxElapsedMs has passed since the first failure, then it gives up before maxAttempts', () => {
    const history: RunHistory = { ...NO_HISTORY, transientFailures: 1, firstTransientAt: 0 };
    expect(decide(transient, history, settings, 10_000)).toMatchObject({ outcome: 'gave-up' });
  });

  it('never schedules a transient retry past the elapsed budget', () => {
    const history: RunHistory = { ...NO_HISTORY, transientFailures: 1, firstTransientAt: 0 };
    expect(decide(transient, history, settings, 9_990, () => 0.99)).toMatchObject({
      kind: 'retry',
      delayMs: 10,
    });
  });

  it('when the contract is not found, then it looks again with its own policy and budget', () => {
    const history: RunHistory = { ...NO_HISTORY, transientFailures: 2, firstTransientAt: 0 };
    expect(decide(notFound, history, settings, 700, half)).toEqual({
      kind: 'retry',
      reason: 'not-found',
      delayMs: 100,
      history: { ...history, notFoundRuns: 1, firstNotFoundAt: 700 },
    });
  });

  it('when the precondition timeout has passed, then the command ends as precondition-timed-out with the time waited', () => {
    const history: RunHistory = { ...NO_HISTORY, notFoundRuns: 6, firstNotFoundAt: 1_000 };
    expect(decide(notFound, history, settings, 6_000)).toMatchObject({
      kind: 'end',
      outcome: 'precondition-timed-out',
      waitedMs: 5_000,
      step: 'doc',
    });
  });

  it('looks a last time exactly at the precondition deadline', () => {
    const history: RunHistory = { ...NO_HISTORY, notFoundRuns: 9, firstNotFoundAt: 0 };
    expect(decide(notFound, history, settings, 4_900, () => 0.99)).toMatchObject({
      kind: 'retry',
      delayMs: 100,
    });
  });
});
