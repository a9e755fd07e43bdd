import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { encodeVarintsInPlace } from './varint-encoding.js';

const require = createRequire(import.meta.url);
const Encoder = require('kafkajs/src/protocol/encoder.js');
const Decoder = require('kafkajs/src/protocol/decoder.js');
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
const decodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js');

/** Zigzag and LEB128 as the Kafka protocol defines them, in 64 bits. */
function reference(value: bigint): number[] {
  let rest = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
  const bytes: number[] = [];
  while (rest >= 0x80n) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return bytes;
}

const INT32 = [0, 1, -1, 63, -64, 64, -65, 127, 128, 300, -300, 2 ** 20, 2 ** 30 - 1, -(2 ** 30)];
const EDGES = [2 ** 30, -(2 ** 30) - 1, 2 ** 31 - 1, -(2 ** 31)];
const LONGS = [2 ** 31, -(2 ** 31) - 1, 2 ** 40, -(2 ** 40), Number.MAX_SAFE_INTEGER];

describe('encodeVarintsInPlace', () => {
  encodeVarintsInPlace();

  it('writes every 32-bit varint as the protocol defines it', () => {
    for (const value of [...INT32, ...EDGES]) {
      const written = [...new Encoder().writeVarInt(value).buffer];
      expect(written, String(value)).toEqual(reference(BigInt(value)));
    }
  });

  it('writes varlongs, small and large, as the protocol defines them, and sizes them alike', () => {
    for (const value of [...INT32, ...EDGES, ...LONGS]) {
      const written = [...new Encoder().writeVarLong(value).buffer];
      expect(written, String(value)).toEqual(reference(BigInt(value)));
      expect(Encoder.sizeOfVarLong(value), String(value)).toBe(written.length);
    }
  });

  it('when a record is encoded, then kafkajs decodes it back whole', () => {
    const headers = { ce_type: 'signingbridge.reminder.sent', empty: '', long: 'x'.repeat(300) };
    const encoded = encodeRecord({
      offsetDelta: 7,
      timestampDelta: 1_234,
      key: 'biz-1',
      value: 'v'.repeat(200),
      headers,
    });
    const decoder = new Decoder(new Encoder().writeEncoder(encoded).buffer);
    expect(decoder.readVarInt()).toBe(decoder.buffer.length - 2);
    const record = decodeRecord(decoder, { firstOffset: '10', firstTimestamp: '1000' });
    expect(record).toMatchObject({
      offset: '17',
      timestamp: '2234',
      value: Buffer.from('v'.repeat(200)),
    });
    expect(String(record.key)).toBe('biz-1');
    expect(
      Object.fromEntries(Object.entries(record.headers).map(([k, v]) => [k, String(v)])),
    ).toEqual(headers);
  });
});
