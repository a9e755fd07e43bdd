import type { InboundRecord } from '../../src/kafka/index.js';
import { createKafkaConnection } from '../../src/kafka/index.js';
import { testLogger } from './test-logger.js';

/** Every record a topic holds now, read as a read_committed consumer, in offset order. */
export async function readTopic(brokers: string[], topic: string): Promise<InboundRecord[]> {
  const kafka = createKafkaConnection({ brokers, clientId: 'harness', log: testLogger('harness') });
  const records: InboundRecord[] = [];
  const reader = kafka.reader({ topics: [topic], start: 'beginning', toEnd: true });
  await reader.start((batch) => {
    records.push(...batch);
  });
  await reader.done;
  return records.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
}
