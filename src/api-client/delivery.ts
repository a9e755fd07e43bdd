/**
 * What a failed call says about the platform, in two independent facts:
 *
 * - `delivery`: whether the platform may have acted. `not-applied` (the request never reached
 *   the platform's operation: not sent, refused at authentication, throttled, or answered by
 *   something in front of it), `in-doubt` (sent, and no readable answer says what happened) or
 *   `answered` (the platform's own verdict: a business refusal).
 * - `outage`: whether the failure is the platform's (or the path to it) rather than the call's:
 *   why every other call would fail now too. The caller pauses on those instead of failing work.
 *
 * A page that is not the platform's JSON (a maintenance page, a gateway's 404 or 503) means the
 * request did not reach the operation. A gateway's 500, 502 or 504 and the platform's own
 * 21990001 do not say how far the request got: in doubt. Each rule is in delivery.test.ts.
 */
import {
  OutcomeUnknown,
  PlatformRejected,
  RequestNotSent,
  ResponseInvalid,
  ResponseTooLarge,
  SigningBridgeError,
  UnexpectedHttpStatus,
} from '../errors.js';

export type Delivery = 'not-applied' | 'in-doubt' | 'answered';

export const OUTAGE_CAUSES = [
  /** The platform refused the credentials: token, signature or timestamp (441 to 445). */
  'auth',
  /** No connection: refused, unreachable, TLS refused, or a request that waited too long. */
  'unreachable',
  /** Sent, and no answer came in time or the connection broke. */
  'no-answer',
  /** Something in front of the platform answered: a maintenance page, a gateway's error. */
  'not-the-platform',
  /** An answer nobody can read: not JSON, or larger than the client accepts. */
  'unreadable-answer',
  /** The platform's own internal error, 21990001. */
  'platform-error',
] as const;

export type OutageCause = (typeof OUTAGE_CAUSES)[number];

export interface CallVerdict {
  readonly delivery: Delivery;
  readonly outage?: OutageCause | undefined;
}

/** A gateway's 5xx that says it did not pass the request on: not implemented, unavailable. */
const NOT_FORWARDED_5XX = new Set([501, 503]);
/**
 * A gateway's 4xx that any request would get now (no such route, not let through, timed out
 * waiting for the request): the way to the platform is down, not this request refused.
 */
const REFUSING_ALL_4XX = new Set([401, 403, 404, 405, 407, 408, 421]);

export function verdictOf(error: unknown): CallVerdict {
  if (error instanceof RequestNotSent) return { delivery: 'not-applied', outage: 'unreachable' };
  if (error instanceof OutcomeUnknown) return { delivery: 'in-doubt', outage: 'no-answer' };
  if (error instanceof PlatformRejected) return platformVerdict(error);
  if (error instanceof UnexpectedHttpStatus) return gatewayVerdict(error.details.httpStatus);
  if (error instanceof ResponseInvalid) return invalidAnswerVerdict(error);
  if (error instanceof ResponseTooLarge) {
    return { delivery: 'in-doubt', outage: 'unreadable-answer' };
  }
  // Refused before sending (an invalid request, a file refused or not downloadable).
  if (error instanceof SigningBridgeError) return { delivery: 'not-applied' };
  return { delivery: 'in-doubt' };
}

function platformVerdict(error: PlatformRejected): CallVerdict {
  if (looksLikeAuthRefusal(error)) return { delivery: 'not-applied', outage: 'auth' };
  switch (error.details.family) {
    case 'auth':
      return { delivery: 'not-applied', outage: 'auth' };
    case 'throttled':
      return { delivery: 'not-applied' };
    case 'transient':
      return { delivery: 'in-doubt', outage: 'platform-error' };
    default:
      return { delivery: 'answered' };
  }
}

/**
 * The platform notes know two authentication codes (441, 442), each answered with an HTTP status
 * equal to the code. A code the table lacks in that same shape (a 4xx status equal to the code)
 * is most likely another credentials refusal, such as a bad signature or a stale timestamp: the
 * operation did not run, and ending the command for good would spend its commandId on an outage.
 */
function looksLikeAuthRefusal(error: PlatformRejected): boolean {
  const { family, httpStatus, platformCode } = error.details;
  return (
    family === 'unknown' &&
    httpStatus >= 400 &&
    httpStatus < 500 &&
    platformCode === String(httpStatus)
  );
}

/**
 * A status without the platform's envelope came from something in front of it. A 5xx other than
 * 501 and 503 does not say how far the request got. A 4xx such as 400 or 413 refused this
 * request only: it fails without being an outage, or it would be waited on for ever.
 */
function gatewayVerdict(status: number): CallVerdict {
  if (status >= 500) {
    const delivery = NOT_FORWARDED_5XX.has(status) ? 'not-applied' : 'in-doubt';
    return { delivery, outage: 'not-the-platform' };
  }
  if (status < 400 || REFUSING_ALL_4XX.has(status)) {
    return { delivery: 'not-applied', outage: 'not-the-platform' };
  }
  return { delivery: 'not-applied' };
}

/**
 * An HTML page with a 2xx is a maintenance page: the operation did not run. JSON that is not an
 * envelope, or an envelope whose result breaks the spec, came from the platform after it ran:
 * the second is the platform answering, not an outage.
 */
function invalidAnswerVerdict(error: ResponseInvalid): CallVerdict {
  if (error.details.reason === 'shape') return { delivery: 'in-doubt' };
  if (isJson(error.details.contentType)) {
    return { delivery: 'in-doubt', outage: 'unreadable-answer' };
  }
  return { delivery: 'not-applied', outage: 'not-the-platform' };
}

function isJson(contentType: string | undefined): boolean {
  return contentType === undefined || /\bjson\b/i.test(contentType);
}
