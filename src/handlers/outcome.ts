/**
 * How an error ends one run of a handler, decided from the error alone: a contract that does not
 * exist (yet) is waited for; a call an outage kept from the platform waits for the outage to
 * end; a call in doubt that reached here may be reconciled (platform-step.ts turned the others
 * into CommandOutcomeUnknown), so it runs again, as does anything else that may pass; everything
 * else fails. Errors outside our catalogue are bugs or aborts, not outcomes: they are rethrown for
 * the consumer to treat as unexpected.
 */
import { type OutageCause, verdictOf } from '../api-client/delivery.js';
import {
  CommandOutcomeUnknown,
  FileRejected,
  PlatformRejected,
  RequestInvalid,
  SigningBridgeError,
  StepUnresolvable,
} from '../errors.js';
import type { Outcome } from './types.js';

export function outcomeOf(step: string, error: unknown): Outcome {
  if (!(error instanceof SigningBridgeError)) throw error;
  if (isNotFound(error)) return { kind: 'retry', reason: 'not-found', step, error };
  const { delivery, outage } = verdictOf(error);
  if (delivery === 'not-applied' && outage !== undefined) {
    return { kind: 'retry', reason: 'outage', step, error, outage };
  }
  if (delivery === 'in-doubt' || error.retryable) {
    return withOutage({ kind: 'retry', reason: 'transient', step, error }, outage);
  }
  const final = delivery === 'answered' || isRefusedAsAsked(error);
  return withOutage({ kind: 'failed', step, error, final }, outage ?? outageBehind(error));
}

/**
 * Only a verdict no run can change spends a commandId: the platform refused this command, or it
 * asks for what the spec forbids (refused before sending, a saga step that cannot be placed).
 * Everything else that fails (an outcome unknown, a file host failing, a bug) may be sent again
 * with the same commandId, and then runs again (docs/design.md, "Only the platform's verdict is
 * final").
 */
function isRefusedAsAsked(error: SigningBridgeError): boolean {
  return (
    error instanceof RequestInvalid ||
    error instanceof FileRejected ||
    error instanceof StepUnresolvable
  );
}

/** A call left unknown by a platform that stopped answering still tells of the outage. */
function outageBehind(error: SigningBridgeError): OutageCause | undefined {
  return error instanceof CommandOutcomeUnknown ? verdictOf(error.cause).outage : undefined;
}

function withOutage<O extends Outcome>(outcome: O, outage: OutageCause | undefined): O {
  return outage === undefined ? outcome : { ...outcome, outage };
}

/** The platform's "contract does not exist": a command that raced its create-contract. */
function isNotFound(error: SigningBridgeError): boolean {
  return error instanceof PlatformRejected && error.details.family === 'not-found';
}
