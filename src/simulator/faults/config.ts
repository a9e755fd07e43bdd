/**
 * What the simulator's fault injection can be told, at start or at run time through the admin
 * API. Every part is optional; an empty config injects nothing.
 */
import { z } from 'zod';
import { OPERATIONS, type OperationName } from '../../schemas/platform/operations.js';

const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** Ten minutes at most: a longer wait is what `hang` is for. */
const Milliseconds = z.number().finite().nonnegative().max(600_000);
const Probability = z.number().min(0).max(1);

/** Added before every answer: fixed, uniform between two bounds, or normal clipped at zero. */
export const LatencyConfig = z.union([
  z.strictObject({ fixedMs: Milliseconds }),
  z
    .strictObject({ minMs: Milliseconds, maxMs: Milliseconds })
    .refine((l) => l.minMs <= l.maxMs, { message: 'minMs must not exceed maxMs', path: ['maxMs'] }),
  z.strictObject({ meanMs: Milliseconds, stdDevMs: Milliseconds }),
]);
export type LatencyConfig = z.infer<typeof LatencyConfig>;

/** The error a failing call answers: a proxy's bare 503, or the platform's own internal error. */
export const InjectedError = z.enum(['http503', 'code21990001']);
export type InjectedError = z.infer<typeof InjectedError>;

/** Chances, per call, that it fails, hangs or has its connection reset (at most one of them). */
export const OperationFaults = z
  .strictObject({
    errorRate: Probability.optional(),
    error: InjectedError.optional(),
    hangRate: Probability.optional(),
    resetRate: Probability.optional(),
  })
  .refine((f) => (f.errorRate ?? 0) + (f.hangRate ?? 0) + (f.resetRate ?? 0) <= 1 + 1e-9, {
    message: 'errorRate, hangRate and resetRate must add up to at most 1',
  });
export type OperationFaults = z.infer<typeof OperationFaults>;

/**
 * What a scripted fault does to a call. Instead of the operation, which never runs: `http503`,
 * `code21990001`, `hang`, `reset`, `maintenance`. Around it, letting it run and its side effect
 * stay: `latency` (a delay first, then a normal answer), and `unlistedValues`, `late`,
 * `resetAfterApply`, `garbage`, `drip`, `huge`, which spoil its answer. What the client sees:
 * responses.ts and answer-writers.ts.
 */
export const FaultKind = z.enum([
  'http503',
  'code21990001',
  'hang',
  'reset',
  'latency',
  'unlistedValues',
  'late',
  'resetAfterApply',
  'garbage',
  'maintenance',
  'drip',
  'huge',
]);
export type FaultKind = z.infer<typeof FaultKind>;

/** 1 GiB: enough to overflow any sane client limit, and still only a stream of padding. */
export const HUGE_MAX_BYTES = 1_073_741_824;
/** 100 MiB when `bytes` is left out. */
export const HUGE_DEFAULT_BYTES = 104_857_600;

const Scripted = {
  operation: z.enum(OPERATION_NAMES).optional(),
  times: z.number().int().positive(),
};

/**
 * A deterministic fault for the next `times` calls of `operation` (of any operation when it is
 * left out). For most kinds `ms` delays the call before the fault acts; `latency` is only that
 * delay, `late` holds the real answer back by `ms`, `drip` sends it one byte every `ms`.
 */
export const ScriptedFault = z.discriminatedUnion('kind', [
  z.strictObject({
    ...Scripted,
    kind: FaultKind.exclude(['latency', 'late', 'drip', 'maintenance', 'huge']),
    ms: Milliseconds.optional(),
  }),
  z.strictObject({ ...Scripted, kind: FaultKind.extract(['latency', 'late']), ms: Milliseconds }),
  // One byte per timer tick: at least a millisecond apart, so a drip cannot spin the event loop.
  z.strictObject({ ...Scripted, kind: z.literal('drip'), ms: Milliseconds.min(1) }),
  z.strictObject({
    ...Scripted,
    kind: z.literal('maintenance'),
    ms: Milliseconds.optional(),
    /** The HTTP status of the maintenance page, as the gateway in front answers it; default 200. */
    status: z.number().int().min(200).max(599).optional(),
  }),
  z.strictObject({
    ...Scripted,
    kind: z.literal('huge'),
    ms: Milliseconds.optional(),
    /** The whole body's size; default HUGE_DEFAULT_BYTES, never less than the real answer. */
    bytes: z.number().int().positive().max(HUGE_MAX_BYTES).optional(),
  }),
]);
export type ScriptedFault = z.infer<typeof ScriptedFault>;

export const FaultConfig = z.strictObject({
  latency: LatencyConfig.optional(),
  /** Per operation; an operation without its own entry takes the whole of the `*` entry. */
  operations: z.partialRecord(z.enum(['*', ...OPERATION_NAMES]), OperationFaults).optional(),
  /**
   * Requests per second over all operations, as a token bucket holding max(rate, 2) tokens.
   * A client pacing exactly at the rate is never refused, even when network jitter brings a
   * request up to one interval early; the floor of 2 keeps that true below 2 requests/s.
   */
  requestsPerSecond: z.number().finite().positive().optional(),
  /** Consumed in order: each call takes one use of the first entry that matches it. */
  script: z.array(ScriptedFault).optional(),
});
export type FaultConfig = z.infer<typeof FaultConfig>;
