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
import { RateControl } from './rate-control.js';
import { readResponse } from './response-reader.js';
import type { Settings } from './settings.js';
import { authHeaders } from './signature.js';
import { isRetryable, transportError } from './transport-errors.js';

/** One call of one operation, ready to send. */
export interface Call<R extends z.ZodType> {
  readonly path: string;
  readonly body: string | FormData;
  readonly result: R;
  readonly context: CallContext;
}

/** What the caller says of one call: its abort signal and its priority for rate tokens. */
export interface SendOptions {
  readonly signal?: AbortSignal | undefined;
  readonly priority?: string | undefined;
}

const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';

export class Transport {
  readonly #settings: Settings;
  readonly #dispatcher: Dispatcher;
  /** Only a pool the transport built itself is closed by it. */
  readonly #ownPool: Pool | undefined;
  readonly #rate: RateControl;
  readonly #basePath: string;

  constructor(settings: Settings) {
    this.#settings = settings;
    if (settings.dispatcher) {
      this.#dispatcher = settings.dispatcher;
    } else {
      this.#ownPool = ownPool(settings);
      this.#dispatcher = this.#ownPool;
    }
    const { requestsPerSecond, priorityWeights, onRateChange } = settings;
    this.#rate = new RateControl({
      requestsPerSecond: requestsPerSecond === 0 ? Number.POSITIVE_INFINITY : requestsPerSecond,
      weights: new Map(Object.entries(priorityWeights)),
      onRate: onRateChange,
    });
    this.#basePath = settings.baseUrl.pathname.replace(/\/+$/, '');
  }

  send<R extends z.ZodType>(call: Call<R>, options: SendOptions = {}): Promise<z.output<R>> {
    const { maxAttempts, ...policy } = this.#settings.retry;
    return retryWithBackoff((attempt) => this.#attempt(call, attempt, options), {
      maxAttempts,
      policy,
      shouldRetry: isRetryable,
      signal: options.signal,
    });
  }

  /** See SigningClient.setRateLimit. */
  setRateLimit(requestsPerSecond: number): void {
    this.#rate.setLimit(requestsPerSecond);
  }

  get rateInForce(): number {
    return this.#rate.inForce;
  }

  async close(): Promise<void> {
    this.#rate.close();
    await this.#ownPool?.close();
  }

  /**
   * One HTTP attempt: every attempt, retries included, waits for its own token; a throttling
   * answer slows every later one (rate-control.ts).
   */
  async #attempt<R extends z.ZodType>(
    call: Call<R>,
    attempt: number,
    { signal, priority }: SendOptions,
  ): Promise<z.output<R>> {
    const tokenWaitMs = await this.#rate.take(priority, signal);
    const { tracer, baseUrl } = this.#settings;
    const target = { baseUrl, path: this.#basePath + call.path, operation: call.context.operation };
    const span = startAttemptSpan(tracer, target, attempt);
    const started = performance.now();
    const report: {
      httpStatus?: number;
      error?: SigningBridgeError<unknown>;
      unlisted?: readonly UnlistedValue[];
    } = {};
    let retryAfter: string | undefined;
    try {
      const answer = await exchange(this.#dispatcher, this.#request(call, signal)).catch(
        (failure: ExchangeFailed) => Promise.reject(transportError(failure, call.context)),
      );
      report.httpStatus = answer.statusCode;
      retryAfter = answer.retryAfter;
      const { result, unlisted } = readResponse(call.result, answer, call.context);
      if (unlisted.length > 0) report.unlisted = unlisted;
      return result;
    } catch (error) {
      // Both steps above throw only catalogue errors.
      report.error = error as SigningBridgeError<unknown>;
      this.#rate.answered(error, retryAfter);
      // The caller's own abort is theirs to recognise, not a transport failure.
      signal?.throwIfAborted();
      throw error;
    } finally {
      const durationMs = performance.now() - started;
      span.end(report);
      this.#settings.onCall?.({
        ...call.context,
        attempt,
        durationMs,
        tokenWaitMs,
        priority,
        ...report,
      });
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
