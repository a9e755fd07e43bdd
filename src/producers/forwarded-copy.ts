/**
 * A command record found on a partition other than the one its key belongs to (its producer
 * partitions by another hash than murmur2: librdkafka's default CRC32, a random one), copied
 * untouched to that partition of the same topic, with a header saying where it was found.
 */
import type { InboundRecord, OutboundRecord } from '../kafka/index.js';

/** `<topic>/<partition>/<offset>` of the record the copy was made from. */
export const FORWARDED_FROM_HEADER = 'sb-forwarded-from';

export function forwardedCopy(record: InboundRecord, partition: number): OutboundRecord {
  return {
    topic: record.topic,
    partition,
    key: record.key,
    value: record.value,
    headers: {
      ...record.headers,
      [FORWARDED_FROM_HEADER]: `${record.topic}/${record.partition}/${record.offset}`,
    },
  };
}
