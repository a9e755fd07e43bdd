import {
  type Kafka,
  Partitioners,
  type Producer,
  type TopicMessages,
  type Transaction,
} from 'kafkajs';
import { KafkaWriteFailed } from '../errors.js';
import type { OutboundRecord, RecordProducer } from './types.js';

/**
 * Idempotent, so the client's own retries never write a record twice, and one request in flight
 * per broker, so records of one partition are written in the order they were sent.
 */
const PRODUCER_CONFIG = {
  idempotent: true,
  maxInFlightRequests: 1,
  allowAutoTopicCreation: false,
  createPartitioner: Partitioners.DefaultPartitioner,
} as const;

export async function connectProducer(kafka: Kafka): Promise<RecordProducer> {
  const producer = kafka.producer(PRODUCER_CONFIG);
  await producer.connect();
  return {
    async send(records) {
      if (records.length === 0) return;
      try {
        await producer.sendBatch({ topicMessages: byTopic(records) });
      } catch (error) {
        throw writeFailed(error);
      }
    },
    disconnect: () => producer.disconnect(),
  };
}

export async function connectTransactionalProducer(
  kafka: Kafka,
  transactionalId: string,
  transactionTimeoutMs: number,
): Promise<RecordProducer> {
  const producer: Producer = kafka.producer({
    ...PRODUCER_CONFIG,
    transactionalId,
    transactionTimeout: transactionTimeoutMs,
  });
  await producer.connect();
  return {
    async send(records) {
      if (records.length === 0) return;
      let transaction: Transaction | undefined;
      try {
        // The first one also initialises the transactional id (fencing any producer that used
        // it before and aborting its open transaction), so it can be refused for good too: a
        // transactional id the bridge is not authorised for, say.
        transaction = await producer.transaction();
        await transaction.sendBatch({ topicMessages: byTopic(records) });
        await transaction.commit();
      } catch (error) {
        await transaction?.abort().catch(() => {});
        throw writeFailed(error);
      }
    },
    disconnect: () => producer.disconnect(),
  };
}

/**
 * kafkajs already retried what it deems retriable (for an idempotent producer, until its retry
 * time ran out); a protocol error it does not retry is the broker refusing the records for good.
 */
function writeFailed(error: unknown): KafkaWriteFailed {
  const {
    name = 'Error',
    message = String(error),
    retriable,
  } = error as {
    name?: string;
    message?: string;
    retriable?: boolean;
  };
  const permanent = name === 'KafkaJSProtocolError' && retriable === false;
  return new KafkaWriteFailed(`writing to Kafka failed: ${message}`, {
    details: { kafkaError: name, permanent },
    cause: error,
  });
}

function byTopic(records: readonly OutboundRecord[]): TopicMessages[] {
  const topics = new Map<string, TopicMessages>();
  for (const { topic, partition, key, value, headers } of records) {
    const messages = topics.get(topic)?.messages ?? [];
    if (messages.length === 0) topics.set(topic, { topic, messages });
    messages.push({ key, value, partition, headers: headers ? { ...headers } : undefined });
  }
  return [...topics.values()];
}
