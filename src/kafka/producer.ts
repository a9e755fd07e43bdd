import type { ICustomPartitioner, Kafka, Producer, TopicMessages, Transaction } from 'kafkajs';
import { Partitioners } from './kafkajs.js';
import { keyPartition } from './murmur2.js';
import type { OutboundRecord, RecordProducer } from './types.js';
import { encodeVarintsInPlace } from './varint-encoding.js';
import { writeFailed } from './write-failure.js';

/**
 * kafkajs' DefaultPartitioner, without its costs per message: it filters the topic's partition
 * list for every message, even one whose partition is given, and its murmur2 makes Long
 * objects for every four bytes of the key. The same choice: the given partition, else murmur2 of the key, else kafkajs' own
 * round robin for a record without a key.
 */
const keyedPartitioner: ICustomPartitioner = () => {
  const unkeyed = Partitioners.DefaultPartitioner();
  return (args) => {
    const { message, partitionMetadata } = args;
    if (message.partition !== undefined && message.partition !== null) return message.partition;
    const { key } = message;
    if (key === undefined || key === null) return unkeyed(args);
    return keyPartition(typeof key === 'string' ? Buffer.from(key) : key, partitionMetadata.length);
  };
};

/**
 * Idempotent, so the client's own retries never write a record twice, and one request in flight
 * per broker, so records of one partition are written in the order they were sent.
 */
const PRODUCER_CONFIG = {
  idempotent: true,
  maxInFlightRequests: 1,
  allowAutoTopicCreation: false,
  createPartitioner: keyedPartitioner,
} as const;

export function connectProducer(kafka: Kafka): Promise<RecordProducer> {
  encodeVarintsInPlace();
  return selfHealing(
    () => kafka.producer(PRODUCER_CONFIG),
    (producer, records) => producer.sendBatch({ topicMessages: byTopic(records) }).then(() => {}),
  );
}

export function connectTransactionalProducer(
  kafka: Kafka,
  transactionalId: string,
  transactionTimeoutMs: number,
): Promise<RecordProducer> {
  encodeVarintsInPlace();
  const config = { ...PRODUCER_CONFIG, transactionalId, transactionTimeout: transactionTimeoutMs };
  return selfHealing(() => kafka.producer(config), sendInTransaction);
}

async function sendInTransaction(producer: Producer, records: readonly OutboundRecord[]) {
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
    throw error;
  }
}

/**
 * A producer that replaces itself after a send Kafka refused for good. kafkajs counts an
 * idempotent producer's sequence numbers per partition before a request and takes them back
 * for every partition of a request that failed, including the partitions the broker did write:
 * after one refused record (too large, say), every later write to those partitions would fail
 * with OUT_OF_ORDER_SEQUENCE_NUMBER. A new producer has a new producer id and fresh sequences.
 * A transactional one keeps its id: the new one fences the old and aborts what it left open.
 */
async function selfHealing(
  create: () => Producer,
  sendWith: (producer: Producer, records: readonly OutboundRecord[]) => Promise<void>,
): Promise<RecordProducer> {
  const open = async () => {
    const producer = create();
    await producer.connect();
    return producer;
  };
  let current = await open();
  let broken = false;
  return {
    async send(records) {
      if (records.length === 0) return;
      try {
        if (broken) {
          await current.disconnect().catch(() => {});
          current = await open();
          broken = false;
        }
        await sendWith(current, records);
      } catch (error) {
        const failed = writeFailed(error);
        broken ||= failed.details.permanent;
        throw failed;
      }
    },
    disconnect: () => current.disconnect(),
  };
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
