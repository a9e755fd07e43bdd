// The one way tests make a record as the bridge's consumer hands it over (InboundRecord): from
// what a test says of it, or from a record as written (asRead).
import type {
  HeaderValue,
  InboundRecord,
  OutboundRecord,
  RecordHeaders,
} from '../../src/kafka/index.js';

/** What a test says of a record. Key and value may be text: their UTF-8 bytes. */
export interface RecordFields
  extends Partial<Omit<InboundRecord, 'key' | 'value' | 'offset' | 'timestamp'>> {
  readonly key?: Buffer | string | null;
  readonly value?: Buffer | string | null;
  readonly offset?: string | number;
  /** Milliseconds since the epoch. */
  readonly timestamp?: string | number;
}

/**
 * A record of commands.remind, partition 0, offset 0, written at 0 ms, with no key, value or
 * headers, but for what `fields` says.
 */
export function inboundRecord(fields: RecordFields = {}): InboundRecord {
  const { key = null, value = null, offset = 0, timestamp = 0, ...rest } = fields;
  return {
    topic: 'commands.remind',
    partition: 0,
    headers: {},
    ...rest,
    offset: String(offset),
    key: bytes(key),
    value: bytes(value),
    timestamp: String(timestamp),
  };
}

/**
 * A written record as a consumer reads it back: key, value and headers as bytes, at the position
 * and time given (by default where the record says, offset 0, now).
 */
export function asRead(
  record: OutboundRecord,
  at: { partition?: number; offset?: string | number; timestamp?: number } = {},
): InboundRecord {
  return inboundRecord({
    topic: record.topic,
    partition: at.partition ?? record.partition ?? 0,
    offset: at.offset ?? 0,
    key: record.key,
    value: record.value,
    headers: headerBytes(record.headers ?? {}),
    timestamp: at.timestamp ?? Date.now(),
  });
}

function bytes(value: Buffer | string | null): Buffer | null {
  return value === null || Buffer.isBuffer(value) ? value : Buffer.from(value);
}

function headerBytes(headers: Readonly<RecordHeaders>): RecordHeaders {
  const read = (value: Buffer | string) => bytes(value) as Buffer;
  const each = (value: HeaderValue) =>
    Array.isArray(value) ? value.map(read) : value === undefined ? undefined : read(value);
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, each(value)]));
}
