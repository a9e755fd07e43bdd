/**
 * How many bytes a record takes in a Kafka record batch, from above: what the broker compares
 * with a topic's `max.message.bytes` is the whole batch, so writers size records and batches
 * with this before sending rather than learn of the limit from a refusal.
 */
import type { OutboundRecord, RecordHeaders } from './types.js';

/** A record batch's own header (v2: 61 bytes), with room to spare. */
export const BATCH_OVERHEAD_BYTES = 128;
// Per record: length, attributes, timestamp and offset deltas, key and value lengths, header
// count (varints of at most 5 or 10 bytes each).
const RECORD_OVERHEAD_BYTES = 40;
// Per header: the varint lengths of its key and value.
const HEADER_OVERHEAD_BYTES = 10;

export function recordSize(record: Pick<OutboundRecord, 'key' | 'value' | 'headers'>): number {
  return (
    RECORD_OVERHEAD_BYTES +
    byteLength(record.key) +
    byteLength(record.value) +
    headersSize(record.headers ?? {})
  );
}

export function headersSize(headers: Readonly<RecordHeaders>): number {
  const { count, bytes } = headerStats(headers);
  return bytes + count * HEADER_OVERHEAD_BYTES;
}

/**
 * Header count and the bytes of their keys and values; a repeated key counts once per value.
 * Every event record has nine headers and is sized on its way to the outbox: no array is made
 * per header.
 */
export function headerStats(headers: Readonly<RecordHeaders>): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const key in headers) {
    if (!Object.hasOwn(headers, key)) continue;
    const value = headers[key];
    if (Array.isArray(value)) {
      for (const one of value) {
        if (one === undefined) continue;
        count++;
        bytes += Buffer.byteLength(key) + byteLength(one);
      }
    } else if (value !== undefined) {
      count++;
      bytes += Buffer.byteLength(key) + byteLength(value);
    }
  }
  return { count, bytes };
}

function byteLength(value: Buffer | string | null): number {
  return value === null ? 0 : Buffer.byteLength(value);
}
