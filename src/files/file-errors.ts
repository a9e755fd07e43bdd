/** The two ways a file by URL fails: refused by policy (final) or not fetched (maybe transient). */
import { FileFetchFailed, FileRejected } from '../errors.js';

const OPERATION = 'downloadFile';

/** Longest URL an error repeats: a command's URL is the producer's to make as long as it likes. */
export const SHOWN_URL_MAX_LENGTH = 200;

/**
 * A URL as it may be logged and published: no credentials, no query (it may hold a signature),
 * at most SHOWN_URL_MAX_LENGTH characters. A URL of another scheme is shown by its scheme
 * alone: the "path" of a `data:` URL is its content.
 */
export function describeUrl(url: URL): string {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `a ${url.protocol} URL`;
  const shown = `${url.origin}${url.pathname}`;
  return shown.length <= SHOWN_URL_MAX_LENGTH
    ? shown
    : `${shown.slice(0, SHOWN_URL_MAX_LENGTH - 1)}…`;
}

export function refused(
  url: URL,
  reason: 'host-not-allowed' | 'private-address' | 'size',
  message: string,
  limitBytes?: number,
): FileRejected {
  const shown = describeUrl(url);
  return new FileRejected(`file ${shown} refused: ${message}`, {
    details: { operation: OPERATION, reason, url: shown, limitBytes },
  });
}

export function fetchFailed(
  url: URL,
  reason: string,
  options: { transient: boolean; httpStatus?: number; cause?: unknown },
): FileFetchFailed {
  const shown = describeUrl(url);
  const { transient, httpStatus, cause } = options;
  // No "will retry" here: the same message ends a command that gave up; `retryable` says it.
  return new FileFetchFailed(`file ${shown} not downloaded: ${reason}`, {
    details: { operation: OPERATION, url: shown, reason, httpStatus, transient },
    cause,
  });
}
