/** The two ways a file by URL fails: refused by policy (final) or not fetched (maybe transient). */
import { FileFetchFailed, FileRejected } from '../errors.js';

const OPERATION = 'downloadFile';

/** A URL as it may be logged and published: no credentials, no query (it may hold a signature). */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
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
  const advice = transient ? 'will retry' : 'will not retry';
  return new FileFetchFailed(`file ${shown} not downloaded: ${reason} (${advice})`, {
    details: { operation: OPERATION, url: shown, reason, httpStatus, transient },
    cause,
  });
}
