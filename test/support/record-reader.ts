import { randomUUID } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import { harnessKafkaClient } from './harness-kafka-client.js';
import { waitUntil } from './wait.js';

/** A record as it is on the broker: key, headers and value as text, nothing decoded. */
export interface RawRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly headers: Record<string, string>;
  readonly value: string | null;
}

/** Reads topics from the beginning and keeps every record as it is, for outside validators. */
export class RecordReader {
  readonly records: RawRecord[] = [];
  readonly #consumer: Consumer;

  private constructor(consumer: Consumer) {
    this.#consumer = consumer;
  }

  static async start(brokers: string[], topics: string[]): Promise<RecordReader> {
    const consumer = harnessKafkaClient(brokers).consumer({
      groupId: `reader-${randomUUID()}`,
      maxWaitTimeInMs: 100,
    });
    const reader = new RecordReader(consumer);
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

  /** Resolves once `condition` holds over the records read, or rejects after `timeoutMs`. */
  async waitUntil(condition: (records: RawRecord[]) => boolean, timeoutMs: number, what: string) {
    await waitUntil(() => this.records, { until: condition, what, timeoutMs });
  }

  stop(): Promise<void> {
    return this.#consumer.disconnect();
  }
}
