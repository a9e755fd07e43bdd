/**
 * kafkajs 2.2.4 reads each varlong of a fetched record (its timestamp delta) through some thirty
 * Long objects and BigInts: three per byte, a dozen more to undo the zigzag (issue 21). This
 * replaces `readVarLong` of kafkajs' protocol decoder with one that reads a varlong of up to seven
 * bytes (49 bits, well within a double's integers) as a number and returns the same Long; a
 * longer one goes back to kafkajs' own, so it still throws where kafkajs throws. As the encoder's
 * varints do, this refuses to install on a decoder it does not recognise.
 */
import { createRequire } from 'node:module';

interface ProtocolDecoder {
  buffer: Buffer;
  offset: number;
  readVarLong(): unknown;
}
interface DecoderClass {
  prototype: ProtocolDecoder & { [INSTALLED]?: true };
}
interface LongClass {
  fromNumber(value: number): unknown;
}

const INSTALLED = Symbol.for('signing-bridge.varint-decoding');
const MAX_SMALL_BYTES = 7;

export function decodeVarLongsWithoutLongs(): void {
  // Required when called (a consumer is being made, so kafkajs has loaded through kafkajs.ts), as
  // varint-encoding.ts does; neither module loads kafkajs' encoder.
  const load = createRequire(import.meta.url);
  const Decoder = load('kafkajs/src/protocol/decoder.js') as DecoderClass;
  const Long = load('kafkajs/src/utils/long.js') as LongClass;
  const proto = Decoder.prototype;
  if (proto[INSTALLED]) return;
  const { readVarLong } = proto;
  if (typeof readVarLong !== 'function' || typeof Long.fromNumber !== 'function') {
    throw new Error('kafkajs protocol decoder not recognised: its varlongs cannot be replaced');
  }
  proto.readVarLong = function readSmallVarLong(this: ProtocolDecoder) {
    const start = this.offset;
    const { buffer } = this;
    let zigzag = 0;
    let scale = 1;
    for (let i = 0; i < MAX_SMALL_BYTES; i++) {
      // Past the buffer's end a byte reads as undefined, which ends the varint as in kafkajs.
      const byte = buffer[this.offset++] as number;
      zigzag += (byte & 0x7f) * scale;
      if (!(byte >= 0x80)) return Long.fromNumber(unZigZag(zigzag));
      scale *= 0x80;
    }
    this.offset = start;
    return readVarLong.call(this);
  };
  proto[INSTALLED] = true;
}

function unZigZag(zigzag: number): number {
  return zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
}
