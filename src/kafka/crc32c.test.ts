import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c } from './crc32c.js';

const kafkajsCrc32C = createRequire(import.meta.url)(
  'kafkajs/src/protocol/recordBatch/crc32C/index.js',
) as (bytes: Buffer) => number;

describe('crc32c', () => {
  it('is the CRC-32C of the standard check input, 0xE3069283', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('is 0 for no bytes', () => {
    expect(crc32c(Buffer.alloc(0))).toBe(0);
  });

  it('agrees with kafkajs for any bytes, at any offset into their buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4_000 }), fc.nat(9), (array, skip) => {
        const bytes = Buffer.from(array).subarray(Math.min(skip, array.length));
        expect(crc32c(bytes)).toBe(kafkajsCrc32C(bytes));
      }),
      { numRuns: 500 },
    );
  });
});
