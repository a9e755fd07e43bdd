/**
 * The platform's answers by code. The label takes the codes of the platform's code table, `0`
 * for success (code 0 and responseCode 00000000 alike), and `other` for any code the table lacks:
 * a platform that invents codes cannot grow the series without bound.
 */
import type { CallInfo } from '../api-client/index.js';
import { PlatformRejected } from '../errors.js';
import { PLATFORM_CODES } from '../schemas/platform/codes.js';

export const SUCCESS_LABEL = '0';
export const OTHER_LABEL = 'other';

/** The answer's code label; undefined when no envelope with a code came back (no answer, a proxy's 502). */
export function answerCode({ error, httpStatus }: CallInfo): string | undefined {
  if (error instanceof PlatformRejected) {
    return PLATFORM_CODES.has(error.details.platformCode)
      ? error.details.platformCode
      : OTHER_LABEL;
  }
  return error === undefined && httpStatus !== undefined ? SUCCESS_LABEL : undefined;
}

/** The platform's code of a call that ended with one, for logs and traces. */
export function platformCodeOf({ error, httpStatus }: CallInfo): string | undefined {
  if (error instanceof PlatformRejected) return error.details.platformCode;
  return error === undefined && httpStatus !== undefined ? SUCCESS_LABEL : undefined;
}
