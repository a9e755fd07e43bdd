/**
 * Everything between an operation and the wire: the pool, the shared rate limit, the gate of
 * requests in flight, signing, the call's deadline, bounded retries, reading the envelope and
 * naming the failure. Operations know none of it.
 *
 * One attempt: a rate token; then the deadline starts and the attempt waits for a slot of the
 * gate; with it, the request is signed and handed to the dispatcher at once; its answer is read
 * up to `maxResponseBytes`. The deadline covers the slot, the connection, the headers and the
 * whole body.
 */
import { randomUUID } from 'node:crypto';
import { type Dispatcher, type FormData, Pool } from 'undici';
import type { z } from 'zod';
import { type CallContext, ResponseTooLarge, type SigningBridgeError } from '../errors.js';
import type { BackoffPolicy } from '../retry/backoff.js';
import { retryWithBackoff } from '../retry/retry.js';
import type { UnlistedValue } from '../schemas/platform/answers.js';
import { CallDeadline } from './call-deadline.js';
import { type AttemptSpan, startAttemptSpan, UNTRACED } from './call-span.js';
import { verdictOf } from './delivery.js';
import { AnswerTooLarge, ExchangeFailed, type ExchangeRequest, exchange } from './http-exchange.js';
import { RateControl } from './rate-control.js';
import { type ReleaseSlot, RequestGate } from './request-gate.js';
import { type HttpAnswer, readResponse } from './response-reader.js';
import { type CallInfo, type Settings, undiciTimeoutMs } from './settings.js';
import { type AuthHeaderNames, authHeaderNames, authHeaders } from './signature.js';
import { isRetryable, responseTooLarge, transportError } from './transport-errors.js';

/** One call of one operation, ready to send. */
export interface Call<R extends z.ZodType> {
  readonly path: string;
  readonly body: string | FormData;
  readonly result: R;
  readonly context: CallContext;
}

/**
 * For a caller that records each call before it may reach the platform (the bridge's ledger
 * marks a step `started`): `beforeSend` runs for each attempt once it holds its rate token and a
 * slot, right before the request is signed and handed to the dispatcher, and the attempt waits
 * for it; if it rejects, nothing is sent and the attempt fails with its error as it is.
 * `notApplied` is told of each attempt that provably did not apply (never written, refused before
 * the operation could act: a 429, an authentication refusal, a maintenance page; or refused by
 * the platform's own verdict), before the client waits to try again or gives up, so the record
 * can be withdrawn meanwhile. An attempt in doubt (sent, no readable answer) is not told.
 */
export interface SendRecorder {
  beforeSend(): Promise<void>;
  notApplied(): void;
}

/** What the caller says of one call: its abort signal, its priority for rate tokens, its recorder. */
export interface SendOptions {
  readonly signal?: AbortSignal | undefined;
  readonly priority?: string | undefined;
  readonly recorder?: SendRecorder | undefined;
}

const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';

/**
 * What one attempt learns on its way, for its report (CallInfo) and its span: one object of one
 * shape per attempt, filled in as the attempt goes.
 */
class AttemptReport {
  /** Its request was handed to the dispatcher: from then on, only the failure says how far it got. */
  dispatched = false;
  httpStatus: number | undefined = undefined;
  slotWaitMs: number | undefined = undefined;
  error: SigningBridgeError<unknown> | undefined = undefined;
  unlisted: readonly UnlistedValue[] | undefined = undefined;
}

export class Transport {
  readonly #settings: Settings;
  readonly #dispatcher: Dispatcher;
  /** Only a pool the transport built itself is closed by it. */
  readonly #ownPool: Pool | undefined;
  readonly #rate: RateControl;
  readonly #gate: RequestGate;
  readonly #origin: string;
  readonly #basePath: string;
  // Read once: every call and attempt needs them.
  readonly #maxAttempts: number;
  readonly #policy: BackoffPolicy;
  readonly #headerNames: AuthHeaderNames;
  readonly #undiciTimeoutMs: number;

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
    this.#gate = new RequestGate(settings.maxConcurrentRequests);
    this.#origin = settings.baseUrl.origin;
    this.#basePath = settings.baseUrl.pathname.replace(/\/+$/, '');
    const { maxAttempts, ...policy } = settings.retry;
    this.#maxAttempts = maxAttempts;
    this.#policy = policy;
    this.#headerNames = authHeaderNames(settings.headerPrefix);
    this.#undiciTimeoutMs = undiciTimeoutMs(settings.timeouts.callMs);
  }

  send<R extends z.ZodType>(call: Call<R>, options: SendOptions = {}): Promise<z.output<R>> {
    return retryWithBackoff((attempt) => this.#attempt(call, attempt, options), {
      maxAttempts: this.#maxAttempts,
      policy: this.#policy,
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
   * answer slows every later one (rate-control.ts). Then its deadline starts: the wait for a slot,
   * the exchange and the answer's last byte all come within it.
   */
  async #attempt<R extends z.ZodType>(
    call: Call<R>,
    attempt: number,
    { signal, priority, recorder }: SendOptions,
  ): Promise<z.output<R>> {
    const tokenWaitMs = await this.#rate.take(priority, signal);
    const span = this.#span(call, attempt);
    const started = performance.now();
    const deadline = new CallDeadline(this.#settings.timeouts.callMs, signal);
    const report = new AttemptReport();
    let retryAfter: string | undefined;
    try {
      const answer = await this.#exchange(call, deadline, report, recorder);
      report.httpStatus = answer.statusCode;
      retryAfter = answer.retryAfter;
      const { result, unlisted } = readResponse(call.result, answer, call.context);
      if (unlisted.length > 0) report.unlisted = unlisted;
      return result;
    } catch (error) {
      // The steps above throw only catalogue errors, but for the recorder's own.
      report.error = error as SigningBridgeError<unknown>;
      // An answer cut off for its size did come, with a status.
      if (error instanceof ResponseTooLarge) report.httpStatus = error.details.httpStatus;
      this.#rate.answered(error, retryAfter);
      if (recorder && (!report.dispatched || verdictOf(error).delivery !== 'in-doubt')) {
        recorder.notApplied();
      }
      // The caller's own abort is theirs to recognise, not a transport failure.
      signal?.throwIfAborted();
      throw error;
    } finally {
      deadline.clear();
      const durationMs = performance.now() - started;
      span.end(report);
      const { onCall } = this.#settings;
      if (onCall) {
        const { context } = call;
        // Field by field: spreading the context and the report made a slow-path object per call.
        const info: CallInfo = {
          operation: context.operation,
          bizId: context.bizId,
          contractId: context.contractId,
          attempt,
          priority,
          tokenWaitMs,
          slotWaitMs: report.slotWaitMs,
          durationMs,
          httpStatus: report.httpStatus,
          error: report.error,
          unlisted: report.unlisted,
        };
        onCall(info);
      }
    }
  }

  /** Without a tracer, nothing is made for it: not even the span's target. */
  #span(call: Call<z.ZodType>, attempt: number): AttemptSpan {
    const { tracer, baseUrl } = this.#settings;
    if (!tracer) return UNTRACED;
    const target = { baseUrl, path: this.#basePath + call.path, operation: call.context.operation };
    return startAttemptSpan(tracer, target, attempt);
  }

  /**
   * A slot of the gate, the recorder's word, then the request signed and dispatched at once; the
   * slot is given back when the exchange settles. A failure of the wait or the exchange comes
   * back as a catalogue error; the recorder's refusal, or a signer that throws (a bug), goes up
   * as it is.
   */
  async #exchange(
    call: Call<z.ZodType>,
    deadline: CallDeadline,
    report: AttemptReport,
    recorder: SendRecorder | undefined,
  ): Promise<HttpAnswer> {
    const asked = performance.now();
    let release: ReleaseSlot;
    try {
      // The deadline is the abort signal of the wait and the exchange (no AbortController).
      release = await this.#gate.acquire(deadline);
    } catch (reason) {
      // The deadline or the caller ended the wait for a slot: nothing was sent.
      throw transportError({ requestSent: false, cause: reason }, call.context);
    }
    try {
      report.slotWaitMs = performance.now() - asked;
      if (recorder) await recorder.beforeSend();
      const request = this.#request(call, deadline);
      report.dispatched = true;
      return await exchange(this.#dispatcher, request).catch((failure: unknown) => {
        throw exchangeError(failure, call.context);
      });
    } finally {
      release();
    }
  }

  /** Signed here, as it is handed to the dispatcher: the timestamp is the moment it leaves. */
  #request(call: Call<z.ZodType>, signal: CallDeadline): ExchangeRequest {
    return {
      origin: this.#origin,
      path: this.#basePath + call.path,
      headers: this.#headers(call.body),
      body: call.body,
      maxResponseBytes: this.#settings.maxResponseBytes,
      headersTimeoutMs: this.#undiciTimeoutMs,
      bodyTimeoutMs: this.#undiciTimeoutMs,
      signal,
    };
  }

  /** Fresh timestamp (and nonce) per attempt: a retried request is signed anew. */
  #headers(body: string | FormData): Record<string, string> {
    const { appToken, appSecret, signer, nonce } = this.#settings;
    const values = signer({
      appToken,
      appSecret,
      // The platform checks the signature's epoch time: the wall clock, read as the request leaves.
      now: Date.now(),
      nonce: nonce ? randomUUID() : undefined,
    });
    const headers = authHeaders(values, this.#headerNames);
    // FormData sets its own multipart content type, boundary included.
    if (typeof body === 'string') headers['content-type'] = JSON_CONTENT_TYPE;
    return headers;
  }
}

/** What a failed exchange amounts to: too large an answer, or a transport failure. */
function exchangeError(failure: unknown, context: CallContext): SigningBridgeError<unknown> {
  if (failure instanceof AnswerTooLarge) return responseTooLarge(failure, context);
  // An ExchangeFailed says whether the request was written; anything else (a dispatcher that
  // threw at once) was not.
  const failed =
    failure instanceof ExchangeFailed ? failure : { requestSent: false, cause: failure };
  return transportError(failed, context);
}

/**
 * Keep-alive is undici's default; as many connections as requests the gate lets through, so none
 * queues in undici. The call deadline is the one limit: undici's own timeouts never fire first.
 */
function ownPool({ baseUrl, timeouts, maxConcurrentRequests }: Settings): Pool {
  return new Pool(baseUrl.origin, {
    connections: maxConcurrentRequests,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: undiciTimeoutMs(timeouts.callMs),
    bodyTimeout: undiciTimeoutMs(timeouts.callMs),
  });
}
