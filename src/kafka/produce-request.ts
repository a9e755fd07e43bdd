/**
 * kafkajs 2.2.4 encodes a produce request through an encoder per record and one per header (an
 * event has nine), copies each into the one that holds it up to six times (record, batch, its
 * checksum's body, partition, topic, request), and spreads every message into a new object on
 * the way; grouping messages by partition copies the partition's array for every message. Under
 * the throughput benchmark these were the largest part of kafkajs' produce path (issue 21).
 *
 * This module puts, in the require cache before kafkajs loads, a produce request (v3; v4 to v7
 * wrap it) whose `encode` writes the same bytes in one pass into one buffer, and a grouping by
 * partition that appends. What it writes is the uncompressed request exactly as kafkajs' own
 * modules write it, field by field (the property test compares them byte for byte); anything
 * else (a compressed request, a key, value or header that is not a string or a Buffer, a
 * timestamp delta beyond ±2^30) goes through kafkajs' own encoding, which is also what rejects
 * what it cannot encode. The batch's checksum is ./crc32c.ts's, and short ASCII strings are
 * copied by hand. kafkajs is pinned; modules not shaped as 2.2.4's are refused.
 */
import { createRequire } from 'node:module';
import { crc32c } from './crc32c.js';
import './pooled-encoder.js'; // kafkajs' modules required below take the pooled encoder
import { isSmall } from './varint-encoding.js';

interface Message {
  readonly key?: unknown;
  readonly value?: unknown;
  readonly headers?: unknown;
  readonly timestamp?: unknown;
}
interface PartitionData {
  readonly partition: number;
  readonly messages: readonly Message[];
  readonly firstSequence?: number;
}
interface TopicData {
  readonly topic: unknown;
  readonly partitions: readonly PartitionData[];
}
interface ProduceArgs {
  readonly acks: number;
  readonly timeout: number;
  readonly transactionalId?: string | null;
  readonly producerId?: unknown;
  readonly producerEpoch?: number;
  readonly compression?: number;
  readonly topicData: readonly TopicData[];
}
interface ProduceRequest {
  encode(): Promise<unknown>;
}
interface LongValue {
  getHighBits(): number;
  getLowBits(): number;
}
interface LongClass {
  fromValue(value: unknown): LongValue;
  fromInt(value: number): LongValue;
}
interface EncoderClass {
  new (initialSize?: number): { buf: Buffer; offset: number };
}
type Grouping = (args: {
  topic: string;
  partitionMetadata: readonly unknown[];
  messages: readonly Message[];
  partitioner: (args: {
    topic: string;
    partitionMetadata: readonly unknown[];
    message: Message;
  }) => number;
}) => Record<number, Message[]>;

const REPLACED = Symbol.for('signing-bridge.produce-request');
const require = createRequire(import.meta.url);
const resolve = (path: string) => require.resolve(`kafkajs/src/${path}`);
const PRODUCE_V3 = resolve('protocol/requests/produce/v3/request.js');
const GROUPING = resolve('producer/groupMessagesPerPartition.js');
const Long = require(resolve('utils/long.js')) as LongClass;

const MAGIC_BYTE = 2;
const TRANSACTIONAL = 16;
// A varint of a 32-bit value takes at most five bytes: a record's length is written after its
// body, in front of it, so five are kept free there and the body moved back by what is unused.
const MAX_VARINT_BYTES = 5;
// The length below which a string's zigzag varint is one byte, and copying it by hand pays.
const SHORT = 64;

/** Why a request goes through kafkajs' own encoding instead. */
class NotPlain extends Error {}

/**
 * A growing buffer, reused for every request: encoding is synchronous, so never shared. It grows
 * by doubling and never shrinks: at most twice the largest request written, which the outbox
 * bounds (its largest batch).
 */
class Writer {
  buf = Buffer.allocUnsafe(64 * 1024);
  offset = 0;

  reserve(length: number): void {
    if (this.offset + length <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.offset + length));
    this.buf.copy(grown, 0, 0, this.offset);
    this.buf = grown;
  }

  int8(value: number): void {
    this.reserve(1);
    this.offset = this.buf.writeInt8(value, this.offset);
  }

  int16(value: number): void {
    this.reserve(2);
    this.offset = this.buf.writeInt16BE(value, this.offset);
  }

  int32(value: number): void {
    this.reserve(4);
    this.offset = this.buf.writeInt32BE(value, this.offset);
  }

  int64(value: unknown): void {
    const long = Long.fromValue(value);
    this.int32(long.getHighBits());
    this.int32(long.getLowBits());
  }

  /** Kafka's STRING (INT16 length) or NULLABLE_STRING. */
  string(value: string | null): void {
    if (value === null) {
      this.int16(-1);
      return;
    }
    const length = Buffer.byteLength(value);
    this.int16(length);
    this.reserve(length);
    this.offset += this.buf.write(value, this.offset, length);
  }

  /** A zigzag varint, as kafkajs writes every varint of a record. */
  varint(value: number): void {
    this.reserve(MAX_VARINT_BYTES);
    let rest = (value << 1) ^ (value >> 31);
    while ((rest & 0xffffff80) !== 0) {
      this.buf[this.offset++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.buf[this.offset++] = rest & 0x7f;
  }

  /** A record's key, value or header: a varint length (-1 for none), then the bytes. */
  varintBytes(value: unknown): void {
    if (value === null || value === undefined) {
      this.varint(-1);
      return;
    }
    if (Buffer.isBuffer(value)) {
      this.varint(value.length);
      this.reserve(value.length);
      this.offset += value.copy(this.buf, this.offset);
      return;
    }
    if (typeof value !== 'string') throw new NotPlain();
    if (value.length < SHORT && this.#ascii(value)) return;
    const length = Buffer.byteLength(value);
    this.varint(length);
    this.reserve(length);
    this.offset += this.buf.write(value, this.offset, length);
  }

  /**
   * A short ASCII string (a header's name and most values) byte by byte, cheaper than a call into
   * the UTF-8 encoder; false, having written nothing, at its first other character.
   */
  #ascii(value: string): boolean {
    const { length } = value;
    this.reserve(1 + length);
    const { buf, offset } = this;
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 0x80) return false;
      buf[offset + 1 + i] = code;
    }
    buf[offset] = length << 1; // its zigzag varint, one byte below SHORT
    this.offset = offset + 1 + length;
    return true;
  }

  /** A placeholder of four bytes, filled by patch32() once what follows is written. */
  slot32(): number {
    this.reserve(4);
    this.offset += 4;
    return this.offset - 4;
  }

  patch32(at: number, value: number): void {
    this.buf.writeInt32BE(value, at);
  }

  /** The bytes written, in a buffer of their own (the writer's is reused). */
  take(): Buffer {
    const bytes = Buffer.allocUnsafe(this.offset);
    this.buf.copy(bytes, 0, 0, this.offset);
    return bytes;
  }
}

const writer = new Writer();

/** The request's bytes as kafkajs' v3 request encodes them uncompressed; throws NotPlain. */
export function encodePlainProduceRequest(args: ProduceArgs): Buffer {
  // kafkajs' defaults, which take the place of `undefined` only.
  const transactionalId = args.transactionalId === undefined ? null : args.transactionalId;
  const producerId = args.producerId === undefined ? Long.fromInt(-1) : args.producerId;
  const batch = {
    attributes: transactionalId ? TRANSACTIONAL : 0,
    // Once per request, not per partition: an idempotent producer's id is a string.
    producerId: Long.fromValue(producerId),
    producerEpoch: args.producerEpoch === undefined ? 0 : args.producerEpoch,
  };
  writer.offset = 0;
  writer.string(transactionalId);
  writer.int16(args.acks);
  writer.int32(args.timeout);
  writer.int32(args.topicData.length);
  for (const { topic, partitions } of args.topicData) {
    if (typeof topic !== 'string') throw new NotPlain();
    writer.string(topic);
    writer.int32(partitions.length);
    for (const partition of partitions) writePartition(partition, batch);
  }
  return writer.take();
}

interface BatchFields {
  readonly attributes: number;
  readonly producerId: LongValue;
  readonly producerEpoch: number;
}

function writePartition({ partition, messages, firstSequence }: PartitionData, batch: BatchFields) {
  const dateNow = Date.now();
  const [firstTimestamp, maxTimestamp] = timestampRange(messages, dateNow);
  writer.int32(partition);
  const size = writer.slot32();
  writer.int64(0); // the first offset: the broker assigns it
  const length = writer.slot32();
  const batchStart = writer.offset;
  writer.int32(0); // the partition leader's epoch
  writer.int8(MAGIC_BYTE);
  const crc = writer.slot32();
  const bodyStart = writer.offset;
  writer.int16(batch.attributes);
  writer.int32(messages.length - 1);
  writer.int64(firstTimestamp);
  writer.int64(maxTimestamp);
  writer.int64(batch.producerId);
  writer.int16(batch.producerEpoch);
  writer.int32(firstSequence === undefined ? 0 : firstSequence);
  writer.int32(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as Message;
    const delta = ((message.timestamp || dateNow) as number) - (firstTimestamp as number);
    writeRecord(message, i, delta);
  }
  writer.buf.writeUInt32BE(crc32c(writer.buf.subarray(bodyStart, writer.offset)), crc);
  writer.patch32(length, writer.offset - batchStart);
  writer.patch32(size, writer.offset - size - 4);
}

/**
 * The first and last of the messages' timestamps in kafkajs' order (a default sort: as strings),
 * or the time of encoding when none has one.
 */
function timestampRange(messages: readonly Message[], dateNow: number): [unknown, unknown] {
  if (!messages.some((message) => message.timestamp != null)) return [dateNow, dateNow];
  const sorted = messages
    .map((message) => message.timestamp)
    .filter((timestamp) => timestamp != null)
    .sort();
  return [sorted[0], sorted[sorted.length - 1]];
}

function writeRecord(message: Message, offsetDelta: number, timestampDelta: number): void {
  if (!isSmall(timestampDelta)) throw new NotPlain();
  const headers = message.headers === undefined ? {} : message.headers;
  if (typeof headers !== 'object' || headers === null) throw new NotPlain();
  writer.reserve(MAX_VARINT_BYTES);
  const start = writer.offset;
  writer.offset += MAX_VARINT_BYTES;
  writer.int8(0); // attributes: none used by a record
  writer.varint(timestampDelta);
  writer.varint(offsetDelta);
  writer.varintBytes(message.key);
  writer.varintBytes(message.value);
  writeHeaders(headers as Record<string, unknown>);
  const bodyStart = start + MAX_VARINT_BYTES;
  const bodyLength = writer.offset - bodyStart;
  writer.offset = start;
  writer.varint(bodyLength);
  writer.buf.copyWithin(writer.offset, bodyStart, bodyStart + bodyLength);
  writer.offset += bodyLength;
}

/** A header of several values (an array) is that many headers of the same name, in order. */
function writeHeaders(headers: Record<string, unknown>): void {
  const names = Object.keys(headers);
  let count = 0;
  for (const name of names) {
    const value = headers[name];
    count += Array.isArray(value) ? value.length : 1;
  }
  writer.varint(count);
  for (const name of names) {
    const value = headers[name];
    if (!Array.isArray(value)) writeHeader(name, value);
    else for (const each of value) writeHeader(name, each);
  }
}

function writeHeader(name: string, value: unknown): void {
  // kafkajs sizes a header with Buffer.byteLength, which refuses anything else.
  if (typeof value !== 'string' && !Buffer.isBuffer(value)) throw new NotPlain();
  writer.varintBytes(name);
  writer.varintBytes(value);
}

/** kafkajs' grouping of a topic's messages by partition, appending instead of copying. */
const appendingGrouping: Grouping = ({ topic, partitionMetadata, messages, partitioner }) => {
  const grouped: Record<number, Message[]> = {};
  if (partitionMetadata.length === 0) return grouped;
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    const current = grouped[partition];
    if (current) current.push(message);
    else grouped[partition] = [message];
  }
  return grouped;
};

function replaceProduceEncoding(): void {
  const original = require(PRODUCE_V3) as ((args: ProduceArgs) => ProduceRequest) & {
    [REPLACED]?: true;
  };
  if (original[REPLACED]) return;
  require(GROUPING);
  const Encoder = require(resolve('protocol/encoder.js')) as EncoderClass;
  const produce = require.cache[PRODUCE_V3];
  const grouping = require.cache[GROUPING];
  if (typeof original !== 'function' || original.length !== 1 || !produce || !grouping) {
    throw new Error('kafkajs produce request not recognised: its encoding cannot be replaced');
  }
  const replaced = (args: ProduceArgs): ProduceRequest => {
    const request = original(args);
    if ((args.compression ?? 0) !== 0) return request;
    const kafkajsEncode = request.encode;
    request.encode = async () => {
      try {
        const encoder = new Encoder(0);
        encoder.buf = encodePlainProduceRequest(args);
        encoder.offset = encoder.buf.length;
        return encoder;
      } catch (error) {
        if (error instanceof NotPlain) return kafkajsEncode();
        throw error;
      }
    };
    return request;
  };
  Object.defineProperty(replaced, REPLACED, { value: true });
  produce.exports = replaced;
  grouping.exports = appendingGrouping;
}

replaceProduceEncoding();
