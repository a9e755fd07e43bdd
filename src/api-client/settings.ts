/**
 * The client's options, checked once at construction and completed with defaults, so the rest
 * of the client reads plain values. The secret is checked but never quoted.
 */
import type { Tracer } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { ConfigInvalid, type SigningBridgeError } from '../errors.js';
import { describeFields, invalidFields } from '../schemas/issues.js';
import type { UnlistedValue } from '../schemas/platform/answers.js';
import { DEFAULT_HEADER_PREFIX, md5Signer, type RequestSigner } from './signature.js';

/** One report per HTTP attempt, for metrics and logs; `error` is absent on success. */
export interface CallInfo {
  readonly operation: string;
  readonly bizId?: string | undefined;
  readonly contractId?: string | undefined;
  /** 0-based; retries have attempt > 0. */
  readonly attempt: number;
  /** The call's priority, as the caller gave it (CallOptions.priority). */
  readonly priority?: string | undefined;
  /** How long the attempt waited for a token of the rate limit. */
  readonly tokenWaitMs: number;
  /**
   * How long it then waited for one of the `maxConcurrentRequests` slots (part of `durationMs`);
   * absent when it never asked for one (its caller aborted while it waited for its token).
   */
  readonly slotWaitMs?: number | undefined;
  /** From asking for a slot (the start of the call's deadline) to the answer or failure. */
  readonly durationMs: number;
  readonly httpStatus?: number | undefined;
  readonly error?: SigningBridgeError<unknown> | undefined;
  /**
   * Statuses and types the platform answered that the spec does not list. The call succeeded
   * and the result keeps them as received; this says which they were, for a warning.
   */
  readonly unlisted?: readonly UnlistedValue[] | undefined;
}

export interface Timeouts {
  /** TCP connect; applies only to the pool the client builds itself. */
  readonly connectMs: number;
  /**
   * One deadline per HTTP attempt, from asking for a connection (its rate token in hand) to the
   * last byte of the answer: the wait for a slot, the connection, the headers and the whole body
   * together. Passed while the request was not yet written: `RequestNotSent`; after: the outcome
   * is unknown (`OutcomeUnknown`). Both with `reason` CALL_DEADLINE_EXCEEDED.
   */
  readonly callMs: number;
}

export interface RetrySettings {
  /**
   * Attempts in all, the first included, of a request that was not sent or was throttled (the
   * only failures the client retries); 1 disables retries.
   */
  readonly maxAttempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly multiplier: number;
}

export interface SigningClientOptions {
  readonly baseUrl: string | URL;
  readonly appToken: string;
  readonly appSecret: string;
  readonly headerPrefix?: string;
  readonly signer?: RequestSigner;
  /** Adds the fourth, nonce header (a fresh UUID per request) and signs over it. */
  readonly nonce?: boolean;
  /**
   * Shared by every call of this client, retries included; 0 or Infinity means unlimited. It can
   * be changed later (SigningClient.setRateLimit), and a throttling answer lowers the rate in
   * force for a while.
   */
  readonly requestsPerSecond?: number;
  /**
   * Weights of call priorities (CallOptions.priority) in the share of rate tokens, when calls of
   * several priorities wait for one; a priority not listed counts as the default one (weight 1).
   */
  readonly priorityWeights?: Readonly<Record<string, number>>;
  /** Told the requests per second in force each time they change. */
  readonly onRateChange?: (requestsPerSecond: number) => void;
  readonly timeouts?: Partial<Timeouts>;
  readonly retry?: Partial<RetrySettings>;
  /**
   * Requests handed to the dispatcher at once; the others wait in the client, in call order, and
   * are signed (timestamp, nonce) only when they leave. A `dispatcher` passed in should have as
   * many connections (a Pool's `connections`), so that a request handed over does not queue
   * again there; the client's own pool has exactly this many.
   */
  readonly maxConcurrentRequests?: number;
  /**
   * Largest answer body read, in bytes: a larger one fails with `ResponseTooLarge` as soon as its
   * `content-length` or its bytes pass it, and its connection is closed.
   */
  readonly maxResponseBytes?: number;
  /** Largest file add-by-file accepts, in bytes. */
  readonly maxFileBytes?: number;
  /**
   * Built at the composition root and closed there; without it the client owns a Pool. Its
   * connections should number `maxConcurrentRequests`.
   */
  readonly dispatcher?: Dispatcher;
  readonly onCall?: (info: CallInfo) => void;
  /**
   * Makes a client span of each HTTP attempt (HTTP semantic conventions), a child of the span
   * active where the call is made. Without it, none.
   */
  readonly tracer?: Tracer;
}

export interface Settings {
  readonly baseUrl: URL;
  readonly appToken: string;
  readonly appSecret: string;
  readonly headerPrefix: string;
  readonly signer: RequestSigner;
  readonly nonce: boolean;
  readonly requestsPerSecond: number;
  readonly priorityWeights: Readonly<Record<string, number>>;
  readonly onRateChange: ((requestsPerSecond: number) => void) | undefined;
  readonly timeouts: Timeouts;
  readonly retry: RetrySettings;
  readonly maxConcurrentRequests: number;
  readonly maxResponseBytes: number;
  readonly maxFileBytes: number;
  readonly dispatcher: Dispatcher | undefined;
  readonly onCall: ((info: CallInfo) => void) | undefined;
  readonly tracer: Tracer | undefined;
}

const positiveMs = z.number().int().positive();
/** A deadline past this is no deadline; well within what a Node timer can hold (2^31 - 1 ms). */
export const MAX_CALL_MS = 3_600_000;
/** An answer's text must fit a JavaScript string, and a process's memory many times over. */
export const MAX_RESPONSE_BYTES_LIMIT = 256 * 1024 * 1024;
const replacedByCallMs = z
  .never({ error: 'removed: timeouts.callMs is now the one deadline of the whole call' })
  .optional();
// Priorities are the few classes of a caller's work: each keeps a queue for good.
const MAX_PRIORITIES = 64;
const MAX_PRIORITY_CHARS = 64;
const MAX_WEIGHT = 1_000_000;
const Checked = z.object({
  baseUrl: z
    .union([z.string(), z.instanceof(URL)])
    .transform((value) => String(value))
    .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })),
  appToken: z.string().min(1, 'must not be empty'),
  appSecret: z.string().min(1, 'must not be empty'),
  headerPrefix: z
    .string()
    .regex(/^[a-z0-9-]*$/i, 'letters, digits and dashes only')
    .optional(),
  requestsPerSecond: z.number().nonnegative().optional(),
  priorityWeights: z
    .record(z.string().max(MAX_PRIORITY_CHARS), z.number().positive().max(MAX_WEIGHT))
    .refine((weights) => Object.keys(weights).length <= MAX_PRIORITIES, {
      message: `at most ${MAX_PRIORITIES} priorities`,
    })
    .optional(),
  timeouts: z
    .object({
      connectMs: positiveMs.optional(),
      callMs: positiveMs.max(MAX_CALL_MS).optional(),
      // Gone since the call deadline: named, so that a caller still setting one learns why.
      headersMs: replacedByCallMs,
      bodyMs: replacedByCallMs,
    })
    .optional(),
  retry: z
    .object({
      maxAttempts: z.number().int().min(1),
      initialDelayMs: z.number().nonnegative(),
      maxDelayMs: z.number().nonnegative(),
      multiplier: z.number().min(1),
    })
    .partial()
    .optional(),
  maxConcurrentRequests: z.number().int().positive().optional(),
  maxResponseBytes: z.number().int().positive().max(MAX_RESPONSE_BYTES_LIMIT).optional(),
  maxFileBytes: z.number().int().positive().optional(),
});

export const DEFAULTS = {
  requestsPerSecond: 10,
  timeouts: { connectMs: 5_000, callMs: 30_000 },
  /**
   * Retries are of requests never sent, or throttled: the backoff is short and not a setting of
   * the service (the option stays for programmatic users).
   */
  retry: { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 5_000, multiplier: 2 },
  maxConcurrentRequests: 10,
  /**
   * The spec's largest answer, a draft with its signatories and their actions, is a few KB;
   * 1 MiB is hundreds of times that, while a stray answer (a proxy's page, a wrong URL) costs at
   * most 1 MiB per request in flight.
   */
  maxResponseBytes: 1024 * 1024,
  maxFileBytes: 20 * 1024 * 1024,
} as const;

export function resolveSettings(options: SigningClientOptions): Settings {
  const checked = Checked.safeParse(options);
  if (!checked.success) {
    const variables = invalidFields(checked.error);
    throw new ConfigInvalid(`invalid SigningClient options: ${describeFields(variables)}`, {
      details: { variables },
    });
  }
  return {
    baseUrl: new URL(checked.data.baseUrl),
    appToken: options.appToken,
    appSecret: options.appSecret,
    headerPrefix: options.headerPrefix ?? DEFAULT_HEADER_PREFIX,
    signer: options.signer ?? md5Signer,
    nonce: options.nonce ?? false,
    requestsPerSecond: options.requestsPerSecond ?? DEFAULTS.requestsPerSecond,
    priorityWeights: options.priorityWeights ?? {},
    onRateChange: options.onRateChange,
    timeouts: withDefaults<Timeouts>(DEFAULTS.timeouts, {
      connectMs: options.timeouts?.connectMs,
      callMs: options.timeouts?.callMs,
    }),
    retry: withDefaults(DEFAULTS.retry, options.retry),
    maxConcurrentRequests: options.maxConcurrentRequests ?? DEFAULTS.maxConcurrentRequests,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    maxFileBytes: options.maxFileBytes ?? DEFAULTS.maxFileBytes,
    dispatcher: options.dispatcher,
    onCall: options.onCall,
    tracer: options.tracer,
  };
}

/**
 * undici's own headers and body timeouts are set this much beyond the call's deadline. They start
 * later than it (once the request is written, once the headers came), so they never fire first:
 * the deadline is the one limit.
 */
export const UNDICI_TIMEOUT_MARGIN_MS = 1_000;

/**
 * undici's `headersTimeout` and `bodyTimeout` for a call deadline, never the first to fire: for a
 * Pool built for the client (the client sets them on each request too).
 */
export function undiciTimeoutMs(callMs: number): number {
  return callMs + UNDICI_TIMEOUT_MARGIN_MS;
}

/** Fills what the caller left out; an explicit `undefined` counts as left out. */
function withDefaults<T extends object>(defaults: T, given: Partial<T> | undefined): T {
  const set = Object.entries(given ?? {}).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(set) };
}
