/**
 * Everything between an operation and the wire: the pool, signing, the shared rate limit,
 * bounded retries, reading the envelope and naming the failure. Operations know none of it.
 */
import { randomUUID } from 'node:crypto';
import { type Dispatcher, type FormData, Pool } from 'undici';
import type { z } from 'zod';
import type { CallContext, SigningBridgeError } from '../errors.js';
import { retryWithBackoff } from '../retry/retry.js';
import type { UnlistedValue } from '../schemas/platform/answers.js';
import { startAttemptSpan } from './call-span.js';
import { type ExchangeFailed, type ExchangeRequest, exchange } from './http-exchange.js';
import { readResponse } from './response-reader.js';
import type { Settings } from './settings.js';
import { authHeaders } from './signature.js';
import { TokenBucket } from './token-bucket.js';
import { isRetryable, transportError } from './transport-errors.js';

/** One call of one operation, ready to send. */
export interface Call<R extends z.ZodType> {
  readonly path: string;
  readonly body: string | FormData;
  readonly result: R;
  readonly context: CallContext;
}

const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';

export class Transport {
  readonly #settings: Settings;
  readonly #dispatcher: Dispatcher;
  /** Only a pool the transport built itself is closed by it. */
  readonly #ownPool: Pool | undefined;
  readonly #bucket: TokenBucket;
  readonly #basePath: string;

  constructor(settings: Settings) {
    this.#settings = settings;
    if (settings.dispatcher) {
      this.#dispatcher = settings.dispatcher;
    } else {
      this.#ownPool = ownPool(settings);
      this.#dispatcher = this.#ownPool;
    }
    this.#bucket = new TokenBucket({ ratePerSecond: settings.requestsPerSecond });
    this.#basePath = settings.baseUrl.pathname.replace(/\/+$/, '');
  }

  send<R extends z.ZodType>(call: Call<R>, signal?: AbortSignal): Promise<z.output<R>> {
    const { maxAttempts, ...policy } = this.#settings.retry;
    return retryWithBackoff((attempt) => this.#attempt(call, attempt, signal), {
      maxAttempts,
      policy,
      shouldRetry: isRetryable,
      signal,
    });
  }

  async close(): Promise<void> {
    await this.#ownPool?.close();
  }

  /** One HTTP attempt: every attempt, retries included, waits for its own token. */
  async #attempt<R extends z.ZodType>(
    call: Call<R>,
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<z.output<R>> {
    await this.#bucket.take(signal);
    const { tracer, baseUrl } = this.#settings;
    const target = { baseUrl, path: this.#basePath + call.path, operation: call.context.operation };
    const span = startAttemptSpan(tracer, target, attempt);
    const started = performance.now();
    const report: {
      httpStatus?: number;
      error?: SigningBridgeError<unknown>;
      unlisted?: readonly UnlistedValue[];
    } = {};
    try {
      const answer = await exchange(this.#dispatcher, this.#request(call, signal)).catch(
        (failure: ExchangeFailed) => Promise.reject(transportError(failure, call.context)),
      );
      report.httpStatus = answer.statusCode;
      const { result, unlisted } = readResponse(call.result, answer, call.context);
      if (unlisted.length > 0) report.unlisted = unlisted;
      return result;
    } catch (error) {
      // Both steps above throw only catalogue errors.
      report.error = error as SigningBridgeError<unknown>;
      // The caller's own abort is theirs to recognise, not a transport failure.
      signal?.throwIfAborted();
      throw error;
    } finally {
      const durationMs = performance.now() - started;
      span.end(report);
      this.#settings.onCall?.({ ...call.context, attempt, durationMs, ...report });
    }
  }

  #request(call: Call<z.ZodType>, signal: AbortSignal | undefined): ExchangeRequest {
    return {
      origin: this.#settings.baseUrl.origin,
      path: this.#basePath + call.path,
      headers: this.#headers(call.body),
      body: call.body,
      headersTimeoutMs: this.#settings.timeouts.headersMs,
      bodyTimeoutMs: this.#settings.timeouts.bodyMs,
      signal,
    };
  }

  /** Fresh timestamp (and nonce) per attempt: a retried request is signed anew. */
  #headers(body: string | FormData): Record<string, string> {
    const { appToken, appSecret, signer, nonce, headerPrefix } = this.#settings;
    const values = signer({
      appToken,
      appSecret,
      now: Date.now(),
      nonce: nonce ? randomUUID() : undefined,
    });
    const auth = authHeaders(values, headerPrefix);
    // FormData sets its own multipart content type, boundary included.
    return typeof body === 'string' ? { ...auth, 'content-type': JSON_CONTENT_TYPE } : auth;
  }
}

/** Keep-alive is undici's default; the timeouts are the client's. */
function ownPool({ baseUrl, timeouts }: Settings): Pool {
  return new Pool(baseUrl.origin, {
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  });
}
