/**
 * Downloading a document's file by URL under the policy: every hop checked (scheme, allow-list,
 * address), a byte cap, one deadline for the whole download. Redirects are followed only to
 * URLs that pass the same checks, up to `maxRedirects` hops.
 */
import { type Dispatcher, request } from 'undici';
import { readCapped, TooLarge } from './capped-body.js';
import { fetchFailed, refused } from './file-errors.js';
import { NonPublicAddress } from './guarded-lookup.js';
import { checkUrl, privateAddressMessage, type UrlPolicy } from './url-check.js';

export { DOWNLOAD_TIMEOUT_MS, MAX_REDIRECTS } from './download-limits.js';

export interface DownloadPolicy extends UrlPolicy {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
}

type Response = Dispatcher.ResponseData;

export async function download(
  url: URL,
  policy: DownloadPolicy,
  dispatcher: Dispatcher,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const deadline = AbortSignal.timeout(policy.timeoutMs);
  const bounded = signal ? new FirstAbort([signal, deadline]) : undefined;
  try {
    return await follow(url, policy, dispatcher, bounded?.signal ?? deadline);
  } catch (error) {
    // The caller's own abort is theirs to recognise; the deadline is ours to name.
    signal?.throwIfAborted();
    if (deadline.aborted) {
      throw fetchFailed(url, `no complete answer within ${policy.timeoutMs} ms`, {
        transient: true,
        cause: error,
      });
    }
    throw error;
  } finally {
    bounded?.detach();
  }
}

/**
 * Aborts with the reason of whichever source aborts first, as `AbortSignal.any` does, but leaves
 * nothing on the sources once detached: on Node 20, `AbortSignal.any` keeps an entry on each
 * source for as long as the source lives, and the caller's signal is shared by the runs of a
 * partition for as long as it is owned.
 */
class FirstAbort {
  readonly #controller = new AbortController();
  readonly #sources: readonly AbortSignal[];

  constructor(sources: readonly AbortSignal[]) {
    this.#sources = sources;
    const aborted = sources.find((source) => source.aborted);
    if (aborted) this.#controller.abort(aborted.reason);
    else for (const source of sources) source.addEventListener('abort', this);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  handleEvent({ target }: { target: EventTarget | null }): void {
    this.#controller.abort((target as AbortSignal).reason);
    this.detach();
  }

  detach(): void {
    for (const source of this.#sources) source.removeEventListener('abort', this);
  }
}

async function follow(
  url: URL,
  policy: DownloadPolicy,
  dispatcher: Dispatcher,
  signal: AbortSignal,
): Promise<Uint8Array> {
  let current = url;
  for (let hop = 0; ; hop++) {
    checkUrl(current, policy);
    const response = await get(current, dispatcher, signal);
    const next = redirectTarget(response, current);
    if (next === undefined) return bodyOf(current, response, policy.maxBytes);
    await response.body.dump();
    if (hop >= policy.maxRedirects) {
      throw fetchFailed(current, `more than ${policy.maxRedirects} redirects`, {
        transient: false,
      });
    }
    current = next;
  }
}

async function get(url: URL, dispatcher: Dispatcher, signal: AbortSignal): Promise<Response> {
  try {
    return await request(url, { method: 'GET', dispatcher, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof NonPublicAddress) {
      throw refused(url, 'private-address', privateAddressMessage(error.host, error.address));
    }
    const code = (error as { code?: unknown }).code;
    const reason = typeof code === 'string' ? code : String(error);
    throw fetchFailed(url, `connection failed (${reason})`, { transient: true, cause: error });
  }
}

/** The next URL of a 3xx with a Location header; a 3xx without one is answered as a failure. */
function redirectTarget(response: Response, url: URL): URL | undefined {
  const { statusCode, headers } = response;
  const location = headers.location;
  if (statusCode < 300 || statusCode >= 400 || typeof location !== 'string') return undefined;
  // Checked first: the TypeError of `new URL` carries the base URL whole, signed query included.
  if (!URL.canParse(location, url.href)) {
    throw fetchFailed(url, 'redirected to a Location that is not a URL', { transient: false });
  }
  return new URL(location, url);
}

async function bodyOf(url: URL, response: Response, maxBytes: number): Promise<Uint8Array> {
  const { statusCode, headers, body } = response;
  if (statusCode < 200 || statusCode >= 300) {
    await body.dump();
    throw fetchFailed(url, `HTTP ${statusCode}`, {
      transient: statusCode === 408 || statusCode === 429 || statusCode >= 500,
      httpStatus: statusCode,
    });
  }
  try {
    return await readCapped(body, maxBytes, headers['content-length']);
  } catch (error) {
    if (error instanceof TooLarge) {
      throw refused(url, 'size', `larger than FILE_MAX_BYTES (${maxBytes} bytes)`, maxBytes);
    }
    throw fetchFailed(url, `body interrupted (${String(error)})`, {
      transient: true,
      cause: error,
    });
  }
}
