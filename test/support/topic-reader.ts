// The one way tests read a topic's records back: all it holds now (readTopic), or every record
// as it comes (TopicReader), for what the bridge, a CLI or an outside validator should find there.
import type { Consumer } from 'kafkajs';
import type { InboundRecord } from '../../src/kafka/index.js';
import { createKafkaConnection } from '../../src/kafka/index.js';
import { harnessKafkaClient } from './harness-kafka-client.js';
import { testLogger } from './test-logger.js';
import { uniqueId } from './unique.js';
import { waitUntil } from './wait.js';

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

/** A record as it is on the broker: key, headers and value as text, nothing decoded. */
export interface RawRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly headers: Record<string, string>;
  readonly value: string | null;
}

/**
 * Follows topics from the beginning, as a consumer group of its own, and keeps every record as
 * it is, in the order read.
 */
export class TopicReader {
  readonly records: RawRecord[] = [];
  readonly #consumer: Consumer;

  private constructor(consumer: Consumer) {
    this.#consumer = consumer;
  }

  static async start(brokers: string[], topics: string[]): Promise<TopicReader> {
    const consumer = harnessKafkaClient(brokers).consumer({
      groupId: uniqueId('reader'),
      maxWaitTimeInMs: 100,
    });
    const reader = new TopicReader(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        const headers = Object.fromEntries(
          Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
        );
        const key = message.key === null ? null : message.key.toString();
        const value = message.value === null ? null : message.value.toString();
        reader.records.push({ topic, partition, offset: message.offset, key, headers, value });
      },
    });
    return reader;
  }

  /** The records read so far with this key. */
  keyed(key: string): RawRecord[] {
    return this.records.filter((record) => record.key === key);
  }

  /** Resolves once `condition` holds over the records read, or rejects after `timeoutMs`. */
  async waitUntil(condition: (records: RawRecord[]) => boolean, timeoutMs: number, what: string) {
    await waitUntil(() => this.records, { until: condition, what, timeoutMs });
  }

  stop(): Promise<void> {
    return this.#consumer.disconnect();
  }
}
