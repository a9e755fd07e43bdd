/**
 * Kafka's record batches (message format v2) read straight from a fetch response's bytes, for
 * scans that look for a few records among many (the console's story of one bizId). kafkajs
 * decodes every record whole, headers and all, some tens of microseconds each: a partition of
 * 80,000 events took seconds. Here a record is a view of offsets into the fetched buffer; its
 * key or a header is compared in place and only a record that is kept is copied out.
 *
 * Read-committed: the batches of aborted transactions are left out, as the Java client does,
 * from the aborted transactions the fetch response lists and the abort markers met; control
 * batches are never records. Compressed batches are read when gzip (Node's zlib); the other
 * codecs are counted as unreadable, never guessed at.
 */
import { gunzipSync } from 'node:zlib';
import type { RecordHeaders } from './types.js';

/** A batch header's length, before its records (Kafka's DefaultRecordBatch.RECORD_BATCH_OVERHEAD). */
const BATCH_HEADER_BYTES = 61;
const LOG_OVERHEAD = 12;
const MAGIC_V2 = 2;
const COMPRESSION_MASK = 0x07;
const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const ABORT_MARKER = 0;

export interface AbortedTransaction {
  readonly producerId: bigint;
  readonly firstOffset: bigint;
}

/** A record in place: what a scan looks at before deciding to keep it. */
export interface RecordView {
  readonly offset: bigint;
  readonly timestamp: number;
  /** Whether the key is exactly these bytes (a null key never is). */
  keyEquals(key: Buffer): boolean;
  /** The value of the first header of that name, in place; undefined without one. */
  header(name: string): Buffer | undefined;
  /** The record copied out of the fetched buffer, to keep. */
  copy(): ScannedRecord;
}

export interface ScannedRecord {
  readonly offset: string;
  /** Milliseconds since the epoch, as a decimal string (as kafkajs gives it). */
  readonly timestamp: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: RecordHeaders;
}

export interface BatchesRead {
  /** The offset after the last record of the last whole batch; undefined when none was whole. */
  readonly next: bigint | undefined;
  /** Records looked at (of committed, readable batches at or after `from`). */
  readonly records: number;
  /** Batches left out because their codec is not read here (snappy, lz4, zstd). */
  readonly unreadable: Readonly<Record<string, number>>;
}

/**
 * Reads the record set of one partition of a fetch response: every record at or after `from`
 * of a committed batch is handed to `visit`. A batch cut off at the end (the fetch's size limit)
 * is left for the next fetch.
 */
export function readBatches(
  records: Buffer,
  from: bigint,
  aborted: readonly AbortedTransaction[],
  visit: (record: RecordView) => void,
): BatchesRead {
  const abortedTransactions = new AbortedTransactions(aborted);
  const unreadable: Record<string, number> = {};
  let next: bigint | undefined;
  let count = 0;
  let at = 0;
  while (at + LOG_OVERHEAD <= records.length) {
    const baseOffset = records.readBigInt64BE(at);
    const length = records.readInt32BE(at + 8);
    const end = at + LOG_OVERHEAD + length;
    if (end > records.length || length < BATCH_HEADER_BYTES - LOG_OVERHEAD) break;
    const batch = batchHeader(records, at, baseOffset);
    next = batch.lastOffset + 1n;
    if (abortedTransactions.skips(batch, records, at, end)) {
      at = end;
      continue;
    }
    const codec = CODECS[batch.attributes & COMPRESSION_MASK] ?? 'unknown';
    if (codec !== 'none' && codec !== 'gzip') {
      unreadable[codec] = (unreadable[codec] ?? 0) + 1;
      at = end;
      continue;
    }
    const body =
      codec === 'gzip'
        ? gunzipSync(records.subarray(at + BATCH_HEADER_BYTES, end))
        : records.subarray(at + BATCH_HEADER_BYTES, end);
    count += readRecords(body, batch, from, visit);
    at = end;
  }
  return { next, records: count, unreadable };
}

interface BatchHeader {
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  readonly attributes: number;
  readonly baseTimestamp: number;
  readonly producerId: bigint;
  readonly count: number;
}

function batchHeader(buffer: Buffer, at: number, baseOffset: bigint): BatchHeader {
  const magic = buffer.readInt8(at + 16);
  if (magic !== MAGIC_V2) {
    throw new Error(
      `record batch at offset ${baseOffset} has message format v${magic}; only v2 is read`,
    );
  }
  return {
    baseOffset,
    attributes: buffer.readInt16BE(at + 21),
    lastOffset: baseOffset + BigInt(buffer.readInt32BE(at + 23)),
    baseTimestamp: Number(buffer.readBigInt64BE(at + 27)),
    producerId: buffer.readBigInt64BE(at + 43),
    count: buffer.readInt32BE(at + 57),
  };
}

/** The aborted transactions of one fetch response, met in offset order. */
class AbortedTransactions {
  readonly #pending: AbortedTransaction[];
  readonly #open = new Set<bigint>();

  constructor(aborted: readonly AbortedTransaction[]) {
    this.#pending = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  }

  /** Whether the batch holds no records to read: a control batch, or an aborted transaction's. */
  skips(batch: BatchHeader, buffer: Buffer, at: number, end: number): boolean {
    const transactional = (batch.attributes & TRANSACTIONAL) !== 0;
    if (transactional) {
      while (
        this.#pending.length > 0 &&
        (this.#pending[0] as AbortedTransaction).firstOffset <= batch.lastOffset
      ) {
        this.#open.add((this.#pending.shift() as AbortedTransaction).producerId);
      }
    }
    if ((batch.attributes & CONTROL) !== 0) {
      if (isAbortMarker(buffer.subarray(at + BATCH_HEADER_BYTES, end))) {
        this.#open.delete(batch.producerId);
      }
      return true;
    }
    return transactional && this.#open.has(batch.producerId);
  }
}

/** A control batch's one record: its key is version (int16) then type (int16, 0 abort). */
function isAbortMarker(body: Buffer): boolean {
  const cursor = new Cursor(body, 0);
  cursor.varint(); // length
  cursor.skip(1); // attributes
  cursor.varlong(); // timestamp delta
  cursor.varint(); // offset delta
  const keyLength = cursor.varint();
  if (keyLength < 4) return false;
  return body.readInt16BE(cursor.at + 2) === ABORT_MARKER;
}

function readRecords(
  body: Buffer,
  batch: BatchHeader,
  from: bigint,
  visit: (record: RecordView) => void,
): number {
  const view = new View(body);
  const cursor = new Cursor(body, 0);
  let visited = 0;
  for (let i = 0; i < batch.count && cursor.at < body.length; i++) {
    const length = cursor.varint();
    const end = cursor.at + length;
    cursor.skip(1);
    const timestampDelta = cursor.varlong();
    const offset = batch.baseOffset + BigInt(cursor.varint());
    if (offset >= from) {
      view.place(cursor, offset, batch.baseTimestamp + timestampDelta, end);
      visit(view);
      visited++;
    }
    cursor.at = end;
  }
  return visited;
}

/** One record's fields as positions in the batch's body; one object reused for every record. */
class View implements RecordView {
  offset = 0n;
  timestamp = 0;
  readonly #body: Buffer;
  #keyAt = 0;
  #keyLength = -1;
  #valueAt = 0;
  #valueLength = -1;
  #headersAt = 0;
  #end = 0;

  constructor(body: Buffer) {
    this.#body = body;
  }

  place(cursor: Cursor, offset: bigint, timestamp: number, end: number): void {
    this.offset = offset;
    this.timestamp = timestamp;
    this.#end = end;
    this.#keyLength = cursor.varint();
    this.#keyAt = cursor.at;
    cursor.skip(Math.max(0, this.#keyLength));
    this.#valueLength = cursor.varint();
    this.#valueAt = cursor.at;
    cursor.skip(Math.max(0, this.#valueLength));
    this.#headersAt = cursor.at;
  }

  keyEquals(key: Buffer): boolean {
    if (this.#keyLength !== key.length) return false;
    return this.#body.compare(key, 0, key.length, this.#keyAt, this.#keyAt + key.length) === 0;
  }

  header(name: string): Buffer | undefined {
    for (const [key, value] of this.#headers()) {
      if (key === name) return value;
    }
    return undefined;
  }

  copy(): ScannedRecord {
    // No prototype: a header may be named __proto__ (anyone can write one). A name met again
    // holds all its values in order, as kafkajs gives them.
    const headers: Record<string, Buffer | Buffer[]> = Object.create(null);
    for (const [key, raw] of this.#headers()) {
      const value = Buffer.from(raw);
      const before = headers[key];
      headers[key] = before === undefined ? value : [before, value].flat();
    }
    return {
      offset: this.offset.toString(),
      timestamp: String(this.timestamp),
      key: this.#bytes(this.#keyAt, this.#keyLength),
      value: this.#bytes(this.#valueAt, this.#valueLength),
      headers,
    };
  }

  #bytes(at: number, length: number): Buffer | null {
    return length < 0 ? null : Buffer.from(this.#body.subarray(at, at + length));
  }

  *#headers(): Generator<[string, Buffer]> {
    const cursor = new Cursor(this.#body, this.#headersAt);
    const count = cursor.varint();
    for (let i = 0; i < count && cursor.at < this.#end; i++) {
      const keyLength = cursor.varint();
      const key = this.#body.toString('utf8', cursor.at, cursor.at + keyLength);
      cursor.skip(keyLength);
      const valueLength = cursor.varint();
      const value = this.#body.subarray(cursor.at, cursor.at + Math.max(0, valueLength));
      cursor.skip(Math.max(0, valueLength));
      yield [key, value];
    }
  }
}

/** Zigzag varints as Kafka writes them; a varlong of a record is well within a double's integers. */
class Cursor {
  at: number;
  readonly #buffer: Buffer;

  constructor(buffer: Buffer, at: number) {
    this.#buffer = buffer;
    this.at = at;
  }

  skip(bytes: number): void {
    this.at += bytes;
  }

  varint(): number {
    const raw = this.#unsigned(5);
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }

  varlong(): number {
    const raw = this.#unsigned(10);
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }

  #unsigned(maxBytes: number): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < maxBytes; i++) {
      if (this.at >= this.#buffer.length) throw new Error('record cut off inside a varint');
      const byte = this.#buffer[this.at++] as number;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new Error('varint longer than its type allows');
  }
}
