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
import type { AbortSource } from './call-deadline.js';
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
  /**
   * Aborts the exchange at once, queued or in flight; it fails with the signal's reason. An
   * AbortSignal, or the attempt's CallDeadline itself.
   */
  readonly signal?: AbortSource | undefined;
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
  return new Promise((resolve, reject) => {
    const handler = new ExchangeHandler(request, resolve, reject);
    const { signal } = request;
    if (signal?.aborted) {
      handler.handleEvent();
      return;
    }
    // The handler is the abort listener too (handleEvent): no closure per exchange.
    signal?.addEventListener('abort', handler, { once: true });
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

/**
 * One exchange's state and undici's callbacks, as one object: undici calls its methods, and
 * the caller's signal calls `handleEvent` when it aborts.
 */
class ExchangeHandler implements Handler {
  readonly #signal: AbortSource | undefined;
  readonly #maxResponseBytes: number;
  readonly #body: BoundedBody;
  readonly #resolve: (answer: HttpAnswer) => void;
  readonly #reject: (failure: unknown) => void;
  #sent = false;
  #settled = false;
  #statusCode = 0;
  #retryAfter: string | undefined = undefined;
  #contentType: string | undefined = undefined;
  #abortUndici: ((reason?: Error) => void) | undefined = undefined;

  constructor(
    request: ExchangeRequest,
    resolve: (answer: HttpAnswer) => void,
    reject: (failure: unknown) => void,
  ) {
    this.#signal = request.signal;
    this.#maxResponseBytes = request.maxResponseBytes;
    this.#body = new BoundedBody(request.maxResponseBytes);
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** The caller's signal aborted: settle at once (a request still queued would wait for a socket). */
  handleEvent(): void {
    const reason = this.#reason();
    this.#abortUndici?.(reason);
    if (this.#settle()) this.#reject(new ExchangeFailed(this.#sent, reason));
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.#settled) abort(this.#reason());
    else this.#abortUndici = abort;
  }

  /** undici takes an abort's reason as an Error; it passes on whatever it is given. */
  #reason(): Error | undefined {
    return this.#signal?.reason as Error | undefined;
  }

  onRequestSent(): void {
    this.#sent = true;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null): boolean {
    this.#statusCode = statusCode;
    const { retryAfter, contentType, contentLength } = answerHeaders(rawHeaders);
    this.#retryAfter = retryAfter;
    this.#contentType = contentType;
    if (Number(contentLength) > this.#maxResponseBytes) {
      this.#tooLarge();
      return false;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#settled) return false;
    if (!this.#body.add(chunk)) {
      this.#tooLarge();
      return false;
    }
    return true;
  }

  onComplete(): void {
    if (!this.#settle()) return;
    const answer: HttpAnswer = {
      statusCode: this.#statusCode,
      body: this.#body.text(),
      ...(this.#retryAfter === undefined ? {} : { retryAfter: this.#retryAfter }),
      ...(this.#contentType === undefined ? {} : { contentType: this.#contentType }),
    };
    this.#resolve(answer);
  }

  onError(error: Error): void {
    if (this.#settle()) this.#reject(new ExchangeFailed(this.#sent, error));
  }

  /** Stop reading now: undici destroys the connection of an aborted request. */
  #tooLarge(): void {
    const failure = new AnswerTooLarge(this.#maxResponseBytes, this.#statusCode, this.#contentType);
    if (this.#settle()) this.#reject(failure);
    this.#abortUndici?.(failure);
  }

  /** True the first time only: the caller hears of one ending. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#signal?.removeEventListener('abort', this);
    return true;
  }
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

const RETRY_AFTER = 'retry-after';
const CONTENT_TYPE = 'content-type';
const CONTENT_LENGTH = 'content-length';

/**
 * The headers the exchange reads, from undici's raw list (name, value, name, value, ...), names
 * in any case; the first of a repeated one. One pass; a name is compared where it lies, and only
 * the values read are made into strings.
 */
function answerHeaders(raw: readonly Buffer[] | readonly string[] | null): {
  retryAfter?: string | undefined;
  contentType?: string | undefined;
  contentLength?: string | undefined;
} {
  let retryAfter: string | undefined;
  let contentType: string | undefined;
  let contentLength: string | undefined;
  for (let i = 0; raw && i + 1 < raw.length; i += 2) {
    const name = raw[i] as Buffer | string;
    if (retryAfter === undefined && isHeaderName(name, RETRY_AFTER))
      retryAfter = String(raw[i + 1]);
    else if (contentType === undefined && isHeaderName(name, CONTENT_TYPE))
      contentType = String(raw[i + 1]);
    else if (contentLength === undefined && isHeaderName(name, CONTENT_LENGTH))
      contentLength = String(raw[i + 1]);
  }
  return { retryAfter, contentType, contentLength };
}

/**
 * Whether a raw header name is `lowerName` (lower-case letters and '-') in any case. ORing 0x20
 * into a code lower-cases an ASCII letter and leaves '-' as it is; the only other code it maps
 * onto one of those is CR onto '-', and a header name holds no CR (the parser refuses it).
 */
export function isHeaderName(name: Buffer | string, lowerName: string): boolean {
  if (name.length !== lowerName.length) return false;
  const text = typeof name === 'string';
  for (let i = 0; i < lowerName.length; i++) {
    const code = text ? (name as string).charCodeAt(i) : ((name as Buffer)[i] as number);
    if ((code | 0x20) !== lowerName.charCodeAt(i)) return false;
  }
  return true;
}
