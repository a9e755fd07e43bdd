import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeVarLongsWithoutLongs } from './varint-decoding.js';

const require = createRequire(import.meta.url);
const Decoder = require('kafkajs/src/protocol/decoder.js');
const Encoder = require('kafkajs/src/protocol/encoder.js');
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
const decodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js');

/**
 * kafkajs' own readVarLong, from a fresh load of its decoder: the unit files share their worker's
 * modules, and another one may have installed ours on the shared decoder already.
 */
function kafkajsReadVarLong() {
  const path = require.resolve('kafkajs/src/protocol/decoder.js');
  const shared = require.cache[path];
  delete require.cache[path];
  try {
    return require(path).prototype.readVarLong;
  } finally {
    require.cache[path] = shared;
  }
}

const originalReadVarLong = kafkajsReadVarLong();

/** What a read gives: the value as a BigInt, or the error's class, and where it stopped. */
function outcome(read: (decoder: { offset: number }) => unknown, bytes: Uint8Array) {
  const decoder = new Decoder(Buffer.from(bytes));
  try {
    const long = read(decoder) as { value: bigint };
    return { value: long.value, offset: decoder.offset };
  } catch (error) {
    return { error: (error as Error).name, offset: decoder.offset };
  }
}

function withOriginal(read: () => void) {
  const installed = Decoder.prototype.readVarLong;
  Decoder.prototype.readVarLong = originalReadVarLong;
  try {
    read();
  } finally {
    Decoder.prototype.readVarLong = installed;
  }
}

/** A varlong as kafkajs' own encoder writes it (this file does not replace the encoder's). */
function varlong(value: bigint): Uint8Array {
  return Uint8Array.from(new Encoder().writeVarLong(value).buffer);
}

function compare(bytes: Uint8Array) {
  let expected: unknown;
  withOriginal(() => {
    expected = outcome((decoder) => originalReadVarLong.call(decoder), bytes);
  });
  const actual = outcome((decoder) => (decoder as typeof Decoder.prototype).readVarLong(), bytes);
  expect(actual).toEqual(expected);
}

describe('decodeVarLongsWithoutLongs', () => {
  decodeVarLongsWithoutLongs();

  it('reads every 64-bit varlong, of every length, as kafkajs does', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (value) => {
        compare(varlong(value));
      }),
      { numRuns: 2_000 },
    );
    for (let bits = 0; bits < 64; bits++) {
      for (const value of [2n ** BigInt(bits), -(2n ** BigInt(bits)), 2n ** BigInt(bits) - 1n]) {
        compare(varlong(BigInt.asIntN(64, value)));
      }
    }
  });

  it('on garbage and truncated buffers, returns, throws and stops where kafkajs does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 14 }), (bytes) => compare(bytes)),
      { numRuns: 5_000 },
    );
    compare(new Uint8Array(12).fill(0xff));
    compare(Uint8Array.from([0x80, 0x80, 0x80]));
  });

  it('returns a Long, which kafkajs adds to the batch timestamp as before', () => {
    const headers = fc.dictionary(
      fc.string({ maxLength: 12 }),
      fc.oneof(fc.string({ maxLength: 40 }), fc.constant('')),
      { maxKeys: 4 },
    );
    const record = fc.record({
      offsetDelta: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      timestampDelta: fc.oneof(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.constantFrom(0, -1, 2 ** 40, -(2 ** 40)),
      ),
      key: fc.option(fc.string({ maxLength: 30 })),
      value: fc.option(fc.string({ maxLength: 400 })),
      headers,
    });
    const context = fc.record({
      firstOffset: fc.bigInt({ min: 0n, max: 2n ** 62n }).map(String),
      firstTimestamp: fc.bigInt({ min: 0n, max: 2n ** 50n }).map(String),
    });
    fc.assert(
      fc.property(record, context, (fields, batchContext) => {
        const bytes = new Encoder().writeEncoder(encodeRecord(fields)).buffer;
        const decode = () => {
          const decoder = new Decoder(bytes);
          decoder.readVarInt();
          return decodeRecord(decoder, batchContext);
        };
        let expected: unknown;
        withOriginal(() => {
          expected = decode();
        });
        expect(decode()).toEqual(expected);
      }),
      { numRuns: 1_000 },
    );
  });

  it('installs once, however often it is called', () => {
    const installed = Decoder.prototype.readVarLong;
    decodeVarLongsWithoutLongs();
    expect(Decoder.prototype.readVarLong).toBe(installed);
    expect(installed).not.toBe(originalReadVarLong);
  });
});
