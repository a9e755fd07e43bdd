/** How one platform call ended, as a label with few values: ok, a code family, or an error kind. */
import {
  OutcomeUnknown,
  PlatformRejected,
  RequestNotSent,
  type SigningBridgeError,
  UnexpectedHttpStatus,
} from '../errors.js';

export function callOutcome(error: SigningBridgeError<unknown> | undefined): string {
  if (error === undefined) return 'ok';
  if (error instanceof PlatformRejected) return error.details.family;
  if (error instanceof RequestNotSent) return 'not-sent';
  if (error instanceof OutcomeUnknown) return 'outcome-unknown';
  if (error instanceof UnexpectedHttpStatus)
    return `http-${Math.floor(error.details.httpStatus / 100)}xx`;
  return error.code.replace(/^SB_ERR_/, '').toLowerCase();
}
