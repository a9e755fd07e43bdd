import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DROPPED_HEADERS_KEY, guardHeaderDecoding, MAX_DECODED_HEADERS } from './header-guard.js';

// kafkajs' own record encoder and decoder: what the consumer runs on every fetched record.
const require = createRequire(import.meta.url);
const Encoder = require('kafkajs/src/protocol/encoder.js');
const Decoder = require('kafkajs/src/protocol/decoder.js');
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
const decodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder.js');

function roundTrip(headers: Record<string, string>) {
  const encoded = encodeRecord({
    offsetDelta: 0,
    timestampDelta: 0,
    key: 'k',
    value: 'v',
    headers,
  });
  const buffer = new Encoder().writeEncoder(encoded).buffer;
  const decoder = new Decoder(buffer);
  decoder.readVarInt(); // the record's length
  return decodeRecord(decoder, { firstOffset: '0', firstTimestamp: '0' });
}

const headers = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`h${i}`, '']));

describe('guardHeaderDecoding', () => {
  guardHeaderDecoding();

  it('when a record has up to the bound of headers, then kafkajs decodes every one', () => {
    const decoded = roundTrip(headers(MAX_DECODED_HEADERS));
    expect(Object.keys(decoded.headers)).toHaveLength(MAX_DECODED_HEADERS);
    expect(decoded.headers[DROPPED_HEADERS_KEY]).toBeUndefined();
    // The bound's worth of headers encoded and decoded: seconds on a busy machine.
  }, 30_000);

  it('when a record has 20,000 headers, then kafkajs keeps the first ones, reads past the rest and counts them, and what follows decodes', () => {
    const decoded = roundTrip(headers(20_000));
    expect(Object.keys(decoded.headers)).toHaveLength(MAX_DECODED_HEADERS + 1);
    expect(String(decoded.headers[DROPPED_HEADERS_KEY])).toBe(String(20_000 - MAX_DECODED_HEADERS));
    expect(String(decoded.value)).toBe('v');
  });

  it('installs once, however often it is called', () => {
    const before = Decoder.prototype.readVarIntArray;
    guardHeaderDecoding();
    expect(Decoder.prototype.readVarIntArray).toBe(before);
  });
});
