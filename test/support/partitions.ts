// Which partition a key lands on with the Java-compatible (murmur2) partitioner, as producers
// following docs/design.md use it: tests that aim records at one partition pick keys with this.
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { uniqueId } from './unique.js';

const murmur2 = Partitioners.DefaultPartitioner();

export function murmur2Partition(key: string, partitions: number): number {
  const partitionMetadata = Array.from(
    { length: partitions },
    (_, partitionId) => ({ partitionId, leader: 0 }) as PartitionMetadata,
  );
  return murmur2({ topic: 'any', partitionMetadata, message: { key, value: null } });
}

/** A fresh key starting with `prefix` that murmur2 puts on `partition`. */
export function keyOnPartition(prefix: string, partition: number, partitions: number): string {
  for (;;) {
    const key = uniqueId(prefix);
    if (murmur2Partition(key, partitions) === partition) return key;
  }
}
