/**
 * Which failures the client retries by itself. The split that matters is "not sent" versus
 * "the platform may have acted": a create or an initiate retried after an unknown outcome can
 * answer 1112 or 1101 for work that did succeed, so only the caller, who can reconcile, may retry
 * anything that reached the platform, or something in front of it.
 */
import {
  type CallContext,
  OutcomeUnknown,
  PlatformRejected,
  RequestNotSent,
  ResponseTooLarge,
} from '../errors.js';
import { DeadlineExceeded } from './call-deadline.js';
import type { AnswerTooLarge, ExchangeFailed } from './http-exchange.js';

/** Failures that happen before a connection exists, so nothing can have been written. */
const NEVER_CONNECTED = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * A failed exchange as one of our transport errors, named by its undici or socket code, or by
 * the call's deadline (`CALL_DEADLINE_EXCEEDED`, with `deadlineMs`). Not written yet (still
 * queued for a slot or a connection): not sent. Written: the outcome is unknown.
 */
export function transportError(
  failure: Pick<ExchangeFailed, 'requestSent' | 'cause'>,
  context: CallContext,
): RequestNotSent | OutcomeUnknown {
  const { cause } = failure;
  const deadline = cause instanceof DeadlineExceeded ? cause : undefined;
  const reason = deadline ? DeadlineExceeded.REASON : (errorCode(cause) ?? describe(cause));
  const details = deadline
    ? { ...context, reason, deadlineMs: deadline.deadlineMs }
    : { ...context, reason };
  const options = { details, cause };
  const why = deadline ? `${deadline.message}` : reason;
  if (NEVER_CONNECTED.has(reason) || !failure.requestSent) {
    const where = deadline ? ' before the request was written' : '';
    return new RequestNotSent(
      `${context.operation}: request not sent (${why}${where}); safe to retry`,
      options,
    );
  }
  return new OutcomeUnknown(
    `${context.operation}: no whole answer after the request was sent (${why}); the platform may ` +
      'have acted, reconcile before retrying',
    options,
  );
}

/** An answer over the size limit, which the exchange stopped reading. */
export function responseTooLarge(failure: AnswerTooLarge, context: CallContext): ResponseTooLarge {
  return new ResponseTooLarge(
    `${context.operation}: the platform's answer is larger than ${failure.limitBytes} bytes; ` +
      'it was not read (the platform may have acted)',
    {
      details: { ...context, limitBytes: failure.limitBytes, httpStatus: failure.statusCode },
      cause: failure,
    },
  );
}

/**
 * The client retries only what cannot have had an effect: a request that was never sent, and a
 * throttling answer (HTTP 429), which the platform refuses before doing anything. Not 502, 503 or
 * 504, not 21990001, not an unknown outcome: the request reached the platform, or something in
 * front of it, and the caller decides (src/consumers runs the command again, reconciling).
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof RequestNotSent) return true;
  return error instanceof PlatformRejected && error.details.family === 'throttled';
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
