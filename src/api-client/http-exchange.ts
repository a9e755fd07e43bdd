/**
 * One HTTP POST on an undici dispatcher, reporting whether the whole request had been handed to
 * the socket when it failed. That single fact separates "not sent, safe to retry" from "the
 * platform may have acted", which is why this uses `dispatch` rather than `request()`: only a
 * dispatch handler is told `onRequestSent`. Interceptors that wrap handlers hide that hook;
 * pass a plain Pool, Agent or Client.
 */
import type { Dispatcher, FormData } from 'undici';
import type { HttpAnswer } from './response-reader.js';

export interface ExchangeRequest {
  readonly origin: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | FormData;
  readonly headersTimeoutMs?: number | undefined;
  readonly bodyTimeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** No answer came; `requestSent` says whether the platform could have received the request. */
export class ExchangeFailed extends Error {
  constructor(
    readonly requestSent: boolean,
    cause: unknown,
  ) {
    super(`HTTP exchange failed ${requestSent ? 'after' : 'before'} the request was sent`, {
      cause,
    });
  }
}

type Handler = Dispatcher.DispatchHandler & { onRequestSent(): void };

export function exchange(dispatcher: Dispatcher, request: ExchangeRequest): Promise<HttpAnswer> {
  const { signal } = request;
  return new Promise((resolve, reject) => {
    let sent = false;
    let settled = false;
    let statusCode = 0;
    let retryAfter: string | undefined;
    let abortUndici: ((reason?: Error) => void) | undefined;
    const chunks: Buffer[] = [];

    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      finish();
    };
    // Settle at once on abort: a request still queued for a socket would otherwise wait for it.
    const onAbort = () => {
      abortUndici?.(signal?.reason);
      settle(() => reject(new ExchangeFailed(sent, signal?.reason)));
    };

    const handler: Handler = {
      onConnect(abort) {
        if (settled) return abort(signal?.reason);
        abortUndici = abort;
      },
      onRequestSent() {
        sent = true;
      },
      onHeaders(status, rawHeaders) {
        statusCode = status;
        retryAfter = headerValue(rawHeaders, 'retry-after');
        return true;
      },
      onData(chunk) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        const body = Buffer.concat(chunks).toString('utf8');
        settle(() =>
          resolve(
            retryAfter === undefined ? { statusCode, body } : { statusCode, body, retryAfter },
          ),
        );
      },
      onError(error) {
        settle(() => reject(new ExchangeFailed(sent, error)));
      },
    };

    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    dispatcher.dispatch(
      {
        origin: request.origin,
        path: request.path,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        headersTimeout: request.headersTimeoutMs,
        bodyTimeout: request.bodyTimeoutMs,
      },
      handler,
    );
  });
}

/** A header of undici's raw list (name, value, name, value, ...), names in any case. */
function headerValue(raw: readonly Buffer[] | string[] | null, name: string): string | undefined {
  for (let i = 0; raw && i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() === name) return String(raw[i + 1]);
  }
  return undefined;
}
