/**
 * Which failures the client retries by itself. The split that matters is "not sent" versus
 * "outcome unknown": a create or an initiate retried after an unknown outcome can answer 1112 or
 * 1101 for work that did succeed, so only the caller, who can reconcile, may retry those.
 */
import { type CallContext, OutcomeUnknown, RequestNotSent, SigningBridgeError } from '../errors.js';
import type { ExchangeFailed } from './http-exchange.js';

/** Failures that happen before a connection exists, so nothing can have been written. */
const NEVER_CONNECTED = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** A failed exchange as one of our transport errors, named by its undici or socket code. */
export function transportError(
  failure: ExchangeFailed,
  context: CallContext,
): RequestNotSent | OutcomeUnknown {
  const reason = errorCode(failure.cause) ?? describe(failure.cause);
  const options = { details: { ...context, reason }, cause: failure.cause };
  if (NEVER_CONNECTED.has(reason) || !failure.requestSent) {
    return new RequestNotSent(
      `${context.operation}: request not sent (${reason}); safe to retry`,
      options,
    );
  }
  return new OutcomeUnknown(
    `${context.operation}: no answer after the request was sent (${reason}); the platform may ` +
      'have acted, reconcile before retrying',
    options,
  );
}

/**
 * The client retries what cannot have had an effect or what the platform calls transient:
 * not sent, 502/503/504, 21990001 and throttling. Never business errors, never unknown outcomes.
 */
export function isRetryable(error: unknown): boolean {
  return (
    error instanceof SigningBridgeError && error.retryable && !(error instanceof OutcomeUnknown)
  );
}

/** Node reports a refused dual-stack connect as an AggregateError; its parts carry the code. */
function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return error instanceof AggregateError ? errorCode(error.errors[0]) : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
