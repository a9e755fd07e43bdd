/**
 * One HTTP POST on an undici dispatcher, reporting whether the whole request had been handed to
 * the socket when it failed. That single fact separates "not sent, safe to retry" from "the
 * platform may have acted", which is why this uses `dispatch` rather than `request()`: only a
 * dispatch handler is told `onRequestSent`. Interceptors that wrap handlers hide that hook;
 * pass a plain Pool, Agent or Client.
 *
 * The answer is bounded: a `content-length` over `maxResponseBytes` is refused at the headers,
 * and bytes are counted as they come, so an answer without one (chunked) is cut off as soon as it
 * passes the limit. Either way the request is aborted at once, which destroys the connection:
 * nothing more is read, and at most `maxResponseBytes` are ever held.
 */
import type { Dispatcher, FormData } from 'undici';
import type { HttpAnswer } from './response-reader.js';

export interface ExchangeRequest {
  readonly origin: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | FormData;
  /** The largest answer body read, in bytes; a larger one fails with AnswerTooLarge. */
  readonly maxResponseBytes: number;
  readonly headersTimeoutMs?: number | undefined;
  readonly bodyTimeoutMs?: number | undefined;
  /** Aborts the exchange at once, queued or in flight; it fails with the signal's reason. */
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

/** The answer was larger than `maxResponseBytes`; the rest of it was not read. */
export class AnswerTooLarge extends Error {
  constructor(
    readonly limitBytes: number,
    readonly statusCode: number,
    readonly contentType: string | undefined,
  ) {
    super(`the answer is larger than ${limitBytes} bytes`);
  }
}

type Handler = Dispatcher.DispatchHandler & { onRequestSent(): void };

export function exchange(dispatcher: Dispatcher, request: ExchangeRequest): Promise<HttpAnswer> {
  const { signal, maxResponseBytes } = request;
  return new Promise((resolve, reject) => {
    let sent = false;
    let settled = false;
    let statusCode = 0;
    let retryAfter: string | undefined;
    let contentType: string | undefined;
    let abortUndici: ((reason?: Error) => void) | undefined;
    const body = new BoundedBody(maxResponseBytes);

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
    // Stop reading now: undici destroys the connection of an aborted request.
    const tooLarge = () => {
      const failure = new AnswerTooLarge(maxResponseBytes, statusCode, contentType);
      settle(() => reject(failure));
      abortUndici?.(failure);
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
        contentType = headerValue(rawHeaders, 'content-type');
        const declared = Number(headerValue(rawHeaders, 'content-length'));
        if (declared > maxResponseBytes) {
          tooLarge();
          return false;
        }
        return true;
      },
      onData(chunk) {
        if (settled) return false;
        if (!body.add(chunk)) {
          tooLarge();
          return false;
        }
        return true;
      },
      onComplete() {
        const answer: HttpAnswer = {
          statusCode,
          body: body.text(),
          ...(retryAfter === undefined ? {} : { retryAfter }),
          ...(contentType === undefined ? {} : { contentType }),
        };
        settle(() => resolve(answer));
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

/** The chunks of a body up to a limit: what would pass it is refused, not kept. */
export class BoundedBody {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(readonly limitBytes: number) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** Keeps the chunk and returns true, or returns false (keeping nothing) if it passes the limit. */
  add(chunk: Buffer): boolean {
    if (this.#bytes + chunk.byteLength > this.limitBytes) return false;
    this.#chunks.push(chunk);
    this.#bytes += chunk.byteLength;
    return true;
  }

  /** The body as UTF-8; one copy, of at most `limitBytes`. */
  text(): string {
    return Buffer.concat(this.#chunks, this.#bytes).toString('utf8');
  }
}

/** A header of undici's raw list (name, value, name, value, ...), names in any case. */
function headerValue(raw: readonly Buffer[] | string[] | null, name: string): string | undefined {
  for (let i = 0; raw && i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() === name) return String(raw[i + 1]);
  }
  return undefined;
}
