import fc from 'fast-check';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { keyPartition, murmur2 } from './murmur2.js';

const kafkajs = Partitioners.DefaultPartitioner();
const metadata = (n: number) =>
  Array.from({ length: n }, (_, partitionId) => ({ partitionId, leader: 0 }) as PartitionMetadata);

describe('keyPartition', () => {
  it('puts every key where kafkajs (and Java) put it, for any key and partition count', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 1, max: 64 }),
        (bytes, n) => {
          const key = Buffer.from(bytes);
          const theirs = kafkajs({
            topic: 't',
            partitionMetadata: metadata(n),
            message: { key, value: null },
          });
          expect(keyPartition(key, n)).toBe(theirs);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
    ['', 275646681],
  ])('hashes %j as Java does (Apache Kafka UtilsTest): %i', (key, expected) => {
    expect(murmur2(Buffer.from(key))).toBe(expected);
  });
});
