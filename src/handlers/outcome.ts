/**
 * How an error ends one run of a handler, decided from the error's class and `retryable` alone:
 * a contract that does not exist (yet) is waited for, anything that may pass is retried, and
 * everything else fails for good. Errors outside our catalogue are bugs or aborts, not outcomes:
 * they are rethrown for the consumer to treat as unexpected.
 */
import { PlatformRejected, SigningBridgeError } from '../errors.js';
import type { Outcome } from './types.js';

export function outcomeOf(step: string, error: unknown): Outcome {
  if (!(error instanceof SigningBridgeError)) throw error;
  if (isNotFound(error)) return { kind: 'retry', reason: 'not-found', step, error };
  if (error.retryable) return { kind: 'retry', reason: 'transient', step, error };
  return { kind: 'failed', step, error };
}

/** The platform's "contract does not exist": a command that raced its create-contract. */
function isNotFound(error: SigningBridgeError): boolean {
  return error instanceof PlatformRejected && error.details.family === 'not-found';
}
