/**
 * The partition Java's default partitioner (and kafkajs', and librdkafka's `murmur2_random`) gives
 * a keyed record: murmur2 of the key's bytes, made positive, modulo the partition count. Written
 * here with 32-bit arithmetic: kafkajs' own takes time quadratic in the key's length.
 */
const SEED = 0x9747b28c;
const M = 0x5bd1e995;

export function murmur2(data: Buffer): number {
  const length = data.length;
  let h = SEED ^ length;
  const whole = length - (length % 4);
  for (let i = 0; i < whole; i += 4) {
    let k = data.readInt32LE(i);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The last one to three bytes, in Java's order (its switch falls through from 3 to 1).
  const tail = length % 4;
  if (tail > 0) {
    if (tail === 3) h ^= (data[whole + 2] as number) << 16;
    if (tail >= 2) h ^= (data[whole + 1] as number) << 8;
    h ^= data[whole] as number;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h;
}

/** The partition of a keyed record among `partitions`, as producers using murmur2 choose it. */
export function keyPartition(key: Buffer, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
