import { describe, expect, it } from 'vitest';
import { partitionOf } from './partitioner.js';

// murmur2 of these keys as Kafka's Java client computes it (its own tests, Utils.murmur2).
const JAVA_MURMUR2: ReadonlyArray<[string, number]> = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
];

describe('partitionOf', () => {
  it.each(JAVA_MURMUR2)(
    'when the key is %s, then the partition is its Java murmur2 hash made positive, modulo the count',
    (key, hash) => {
      for (const partitions of [1, 3, 12, 100]) {
        expect(partitionOf(key, partitions)).toBe((hash & 0x7fffffff) % partitions);
      }
    },
  );
});
