/**
 * kafkajs 2.2.4 writes each varint of a produced record (its length, the lengths of its key, its
 * value and of every header's name and value: some 25 for an event with its nine headers)
 * through a new array and a new Buffer, and each varlong (a record's timestamp delta) through
 * half a dozen Long objects. Under the throughput benchmark that was the largest allocation of
 * the process (issue 21). These write the same bytes straight into the encoder's buffer.
 *
 * They replace `writeUVarInt`, `writeVarLong` and `sizeOfVarLong` of kafkajs' protocol encoder;
 * a varlong outside ±2^30 (never one of a record's deltas) still goes through kafkajs' own. As
 * the header guard does, this refuses to install on an encoder it does not recognise.
 */
import { createRequire } from 'node:module';

interface ProtocolEncoder {
  buf: Buffer;
  offset: number;
  ensureAvailable(length: number): void;
  writeUVarInt(value: number): ProtocolEncoder;
  writeVarLong(value: unknown): ProtocolEncoder;
}
interface EncoderClass {
  prototype: ProtocolEncoder & { [INSTALLED]?: true };
  sizeOfVarInt(value: number): number;
  sizeOfVarLong(value: unknown): number;
}

const INSTALLED = Symbol.for('signing-bridge.varint-encoding');
// Below this magnitude a zigzag varlong is the zigzag varint of the same number.
const SMALL = 2 ** 30;
// A 32-bit varint takes at most five bytes.
const MAX_VARINT_BYTES = 5;

export function encodeVarintsInPlace(): void {
  const Encoder = createRequire(import.meta.url)('kafkajs/src/protocol/encoder.js') as EncoderClass;
  const proto = Encoder.prototype;
  if (proto[INSTALLED]) return;
  const { writeVarLong, ensureAvailable, writeUVarInt } = proto;
  const { sizeOfVarLong, sizeOfVarInt } = Encoder;
  if (
    [writeVarLong, ensureAvailable, writeUVarInt, sizeOfVarLong, sizeOfVarInt].some(notAFunction)
  ) {
    throw new Error('kafkajs protocol encoder not recognised: its varints cannot be replaced');
  }
  proto.writeUVarInt = function writeUVarIntInPlace(this: ProtocolEncoder, value: number) {
    this.ensureAvailable(MAX_VARINT_BYTES);
    const { buf } = this;
    let rest = value;
    while ((rest & 0xffffff80) !== 0) {
      buf[this.offset++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    buf[this.offset++] = rest & 0x7f;
    return this;
  };
  proto.writeVarLong = function writeSmallVarLong(this: ProtocolEncoder, value: unknown) {
    if (!isSmall(value)) return writeVarLong.call(this, value);
    return this.writeUVarInt((value << 1) ^ (value >> 31));
  };
  Encoder.sizeOfVarLong = (value: unknown) =>
    isSmall(value) ? Encoder.sizeOfVarInt(value) : sizeOfVarLong.call(Encoder, value);
  proto[INSTALLED] = true;
}

/** A varlong kafkajs writes as the varint of the same number (zigzag within 32 bits). */
export function isSmall(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= -SMALL && value < SMALL;
}

function notAFunction(value: unknown): boolean {
  return typeof value !== 'function';
}
