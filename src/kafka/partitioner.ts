import { Partitioners } from 'kafkajs';

const murmur2 = Partitioners.DefaultPartitioner();

/**
 * The partition a record keyed `key` goes to in a topic of `partitions` partitions, as kafkajs'
 * DefaultPartitioner and Java's clients choose it (murmur2 of the key's UTF-8 bytes).
 */
export function partitionOf(key: string, partitions: number): number {
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    partitionErrorCode: 0,
    leader: 0,
    replicas: [],
    isr: [],
  }));
  return murmur2({ topic: '', partitionMetadata, message: { key, value: null } });
}
