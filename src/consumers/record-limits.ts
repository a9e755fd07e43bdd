/**
 * Limits checked on a command record as fetched, before anything of it is decoded, parsed or
 * hashed: one record of a few hundred kilobytes (a buggy producer as easily as a hostile one)
 * must cost a rejection, not the process.
 */
import { headerStats, type InboundRecord } from '../kafka/index.js';

export interface RecordLimits {
  readonly maxKeyBytes: number;
  readonly maxValueBytes: number;
  readonly maxHeaders: number;
  /** Keys and values of every header together. */
  readonly maxHeaderBytes: number;
}

/** A limit a record broke: the variable that sets it, its value, and what the record had. */
export interface LimitBreach {
  readonly limit: string;
  readonly max: number;
  readonly actual: number;
  /** Where in the JSON value, for a limit on its structure. */
  readonly path?: string | undefined;
}

export const DEFAULT_RECORD_LIMITS: RecordLimits = {
  maxKeyBytes: 1024,
  maxValueBytes: 1024 * 1024,
  maxHeaders: 64,
  maxHeaderBytes: 16 * 1024,
};

/** The first limit the record breaks, in the order listed; undefined when it keeps them all. */
export function recordLimitBreach(
  record: InboundRecord,
  limits: RecordLimits,
): LimitBreach | undefined {
  const { count, bytes } = headerStats(record.headers);
  const checks: Array<[string, number, number]> = [
    ['RECORD_MAX_KEY_BYTES', limits.maxKeyBytes, record.key?.length ?? 0],
    ['RECORD_MAX_VALUE_BYTES', limits.maxValueBytes, record.value?.length ?? 0],
    ['RECORD_MAX_HEADERS', limits.maxHeaders, count],
    ['RECORD_MAX_HEADER_BYTES', limits.maxHeaderBytes, bytes],
  ];
  const broken = checks.find(([, max, actual]) => actual > max);
  return broken && { limit: broken[0], max: broken[1], actual: broken[2] };
}

/** What a record holds in memory while in hand, roughly: key, value and headers. */
export function recordBytes(record: InboundRecord): number {
  return (
    (record.key?.length ?? 0) + (record.value?.length ?? 0) + headerStats(record.headers).bytes
  );
}
