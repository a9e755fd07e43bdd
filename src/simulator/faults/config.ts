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

/** `unlistedValues`: handled normally, answered with statuses and types the spec does not list. */
export const FaultKind = z.enum([
  'http503',
  'code21990001',
  'hang',
  'reset',
  'latency',
  'unlistedValues',
]);
export type FaultKind = z.infer<typeof FaultKind>;

/**
 * A deterministic fault for the next `times` calls of `operation` (of any operation when it is
 * left out). `ms` delays the call before the fault acts; a `latency` fault is only that delay.
 */
export const ScriptedFault = z
  .strictObject({
    operation: z.enum(OPERATION_NAMES).optional(),
    kind: FaultKind,
    times: z.number().int().positive(),
    ms: Milliseconds.optional(),
  })
  .refine((f) => f.kind !== 'latency' || f.ms !== undefined, {
    message: 'a latency fault needs ms',
    path: ['ms'],
  });
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
