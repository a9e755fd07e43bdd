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
  /** From the request handed to the pool to its answer or failure. */
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
  /** From the request written to the response headers. */
  readonly headersMs: number;
  /** Between two chunks of the response body. */
  readonly bodyMs: number;
}

export interface RetrySettings {
  /** Attempts in all, the first included; 1 disables retries. */
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
  /** Largest file add-by-file accepts, in bytes. */
  readonly maxFileBytes?: number;
  /** Built at the composition root and closed there; without it the client owns a Pool. */
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
  readonly maxFileBytes: number;
  readonly dispatcher: Dispatcher | undefined;
  readonly onCall: ((info: CallInfo) => void) | undefined;
  readonly tracer: Tracer | undefined;
}

const positiveMs = z.number().int().positive();
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
    .object({ connectMs: positiveMs, headersMs: positiveMs, bodyMs: positiveMs })
    .partial()
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
  maxFileBytes: z.number().int().positive().optional(),
});

export const DEFAULTS = {
  requestsPerSecond: 10,
  timeouts: { connectMs: 5_000, headersMs: 30_000, bodyMs: 30_000 },
  retry: { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 5_000, multiplier: 2 },
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
    timeouts: withDefaults(DEFAULTS.timeouts, options.timeouts),
    retry: withDefaults(DEFAULTS.retry, options.retry),
    maxFileBytes: options.maxFileBytes ?? DEFAULTS.maxFileBytes,
    dispatcher: options.dispatcher,
    onCall: options.onCall,
    tracer: options.tracer,
  };
}

/** Fills what the caller left out; an explicit `undefined` counts as left out. */
function withDefaults<T extends object>(defaults: T, given: Partial<T> | undefined): T {
  const set = Object.entries(given ?? {}).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(set) };
}
