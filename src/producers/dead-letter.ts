/**
 * A copy of a command record the bridge could not run, for someone to look at: key, value and
 * headers untouched, plus `dlq-*` headers saying why, where it came from and when.
 *
 * The record's own headers are copied when they are within the input limits (count and bytes)
 * and the consumer kept them all, and its key when it is within its limit; otherwise they are
 * left out, the key cut to an excerpt (a key is hashed to choose the copy's partition, and
 * kafkajs' hash takes time quadratic in its length). A copy that would still not fit in the
 * dead-letter topic (`max.message.bytes`) is cut instead of refused: its key to an excerpt and
 * its value to what room is left. `dlq-truncated` lists what was left out or cut.
 * The original stays in its source topic, at the position the headers give, until that topic's
 * retention.
 */
import type { ErrorCode } from '../error-codes.js';
import type { SigningBridgeError } from '../errors.js';
import {
  bytesExcerpt,
  excerpt,
  ID_EXCERPT_MAX_CHARS,
  MESSAGE_EXCERPT_MAX_CHARS,
} from '../events/index.js';
import {
  BATCH_OVERHEAD_BYTES,
  headerStats,
  type InboundRecord,
  type OutboundRecord,
  type RecordHeaders,
  recordSize,
} from '../kafka/index.js';
import { producedAt } from './forwarded-copy.js';

export const DLQ_HEADERS = {
  errorCode: 'dlq-error-code',
  errorMessage: 'dlq-error-message',
  sourceTopic: 'dlq-source-topic',
  sourcePartition: 'dlq-source-partition',
  sourceOffset: 'dlq-source-offset',
  sourceTimestamp: 'dlq-source-timestamp',
  failedAt: 'dlq-failed-at',
  /** Comma-separated parts of the record that were cut to fit: `headers`, `key`, `value`. */
  truncated: 'dlq-truncated',
  /** The size of the original value, when it was cut. */
  originalValueBytes: 'dlq-original-value-bytes',
} as const;

/**
 * The headers of a replay marker, the other kind of record on the dead-letter topic: written by
 * `signing-bridge dlq replay` (src/cli) in the transaction that sends a dead letter back.
 */
export const REPLAY_MARKER_HEADERS = {
  /** `<partition>/<offset>` of the dead letter, in this topic, that was sent back. */
  replayOf: 'dlq-replay-of',
  /** When (RFC 3339, UTC). */
  replayedAt: 'dlq-replayed-at',
} as const;

/** What each header says: the AsyncAPI document is built from these. */
export const DLQ_HEADER_DESCRIPTIONS: Record<keyof typeof DLQ_HEADERS, string> = {
  errorCode:
    'Why the record was refused: our error code (SB_ERR_COMMAND_INVALID, SB_ERR_COMMAND_LIMIT_EXCEEDED)',
  errorMessage: 'What was wrong with it, and where: the fields and the rules they broke',
  sourceTopic: 'The command topic the record was read on',
  sourcePartition:
    'The partition its producer wrote it to (decimal); for a record the bridge forwarded to the partition of its key, the one it was found on',
  sourceOffset: 'Its offset there (decimal)',
  sourceTimestamp: "The record's own timestamp (RFC 3339, UTC)",
  failedAt: 'When the bridge refused it (RFC 3339, UTC)',
  truncated:
    'Only on a copy cut to fit: what was left out or cut, comma-separated (headers, key, value)',
  originalValueBytes: 'Only when the value was cut: the size of the original value (decimal)',
};

/** Headers a dead letter has only when it was cut to fit. */
export const OPTIONAL_DLQ_HEADERS: ReadonlyArray<keyof typeof DLQ_HEADERS> = [
  'truncated',
  'originalValueBytes',
];

/** Every header name the dead-letter topic's records carry starts with this. */
export const DLQ_HEADER_PREFIX = 'dlq-';

/** Why a record goes to the dead-letter topic: the codes of the errors that reject one. */
export const DEAD_LETTER_REASONS: readonly ErrorCode[] = [
  'SB_ERR_COMMAND_INVALID',
  'SB_ERR_COMMAND_LIMIT_EXCEEDED',
  'SB_ERR_COMMAND_CRASH_LOOP',
];

export interface DeadLetterLimits {
  /** The dead-letter topic's max.message.bytes. */
  readonly maxRecordBytes: number;
  /** The input limits on a record's key and headers: a key or headers over them are not copied. */
  readonly maxKeyBytes: number;
  readonly maxHeaders: number;
  readonly maxHeaderBytes: number;
}

export function deadLetterRecord(
  record: InboundRecord,
  error: SigningBridgeError,
  topic: string,
  limits: DeadLetterLimits,
  now: Date = new Date(),
): OutboundRecord {
  const source = producedAt(record);
  const ours: Record<string, string> = {
    [DLQ_HEADERS.errorCode]: error.code,
    [DLQ_HEADERS.errorMessage]: excerpt(error.message, MESSAGE_EXCERPT_MAX_CHARS),
    [DLQ_HEADERS.sourceTopic]: source.topic,
    [DLQ_HEADERS.sourcePartition]: String(source.partition),
    [DLQ_HEADERS.sourceOffset]: source.offset,
    [DLQ_HEADERS.sourceTimestamp]: new Date(Number(record.timestamp)).toISOString(),
    [DLQ_HEADERS.failedAt]: now.toISOString(),
  };
  const keepHeaders = headersWithin(record, limits);
  const keepKey = (record.key?.length ?? 0) <= limits.maxKeyBytes;
  const headers = { ...(keepHeaders ? record.headers : {}), ...ours };
  const whole = { topic, key: record.key, value: record.value, headers };
  const room = limits.maxRecordBytes - BATCH_OVERHEAD_BYTES;
  if (keepHeaders && keepKey && recordSize(whole) <= room) return whole;
  const key = keepKey ? record.key : bytesExcerpt(record.key as Buffer, ID_EXCERPT_MAX_CHARS);
  const cut = [...(keepHeaders ? [] : ['headers']), ...(keepKey ? [] : ['key'])];
  return truncated({ topic, key, value: record.value, headers }, cut, room);
}

function headersWithin(record: InboundRecord, limits: DeadLetterLimits): boolean {
  const { count, bytes } = headerStats(record.headers);
  return count <= limits.maxHeaders && bytes <= limits.maxHeaderBytes;
}

/** The copy with its value cut to what room is left, if it must be; `cut` names what already was. */
function truncated(
  copy: OutboundRecord & { value: Buffer | null; headers: RecordHeaders },
  cut: string[],
  room: number,
): OutboundRecord {
  const { topic, key, value } = copy;
  if (recordSize(copy) <= room) {
    return { ...copy, headers: { ...copy.headers, [DLQ_HEADERS.truncated]: cut.join(',') } };
  }
  const headers: RecordHeaders = {
    ...copy.headers,
    [DLQ_HEADERS.truncated]: [...cut, 'value'].join(','),
    [DLQ_HEADERS.originalValueBytes]: String(value?.length ?? 0),
  };
  const left = Math.max(0, room - recordSize({ key, value: null, headers }));
  return { topic, key, value: value?.subarray(0, left) ?? null, headers };
}
