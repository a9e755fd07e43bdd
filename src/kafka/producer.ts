import {
  type ICustomPartitioner,
  type Kafka,
  type Message,
  Partitioners,
  type Producer,
  type ProducerConfig,
  type RecordMetadata,
} from 'kafkajs';
import { type PartitionOf, sendCovering, type TopicMessage } from './covering-send.js';
import { keyPartition } from './murmur2.js';
import type { OutboundRecord, RecordProducer } from './types.js';
import { writeFailed } from './write-failure.js';

/**
 * kafkajs' DefaultPartitioner, without its costs per message: it filters the topic's partition
 * list for every message, even one whose partition is given, and its murmur2 makes Long
 * objects for every four bytes of the key. The same choice: the given partition, else murmur2
 * of the key (as Java's clients do, so a bizId's commands share one partition number across
 * topics), else kafkajs' own round robin for a record without a key.
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

/** The keyed partitioner, remembering for each message the partition it chose. */
function rememberingPartitioner(): Pick<ProducerConfig, 'createPartitioner'> & {
  partitionOf: PartitionOf;
} {
  const chosen = new WeakMap<Message, number>();
  return {
    partitionOf: (message) => message.partition ?? chosen.get(message),
    createPartitioner: () => {
      const partition = keyedPartitioner();
      return (args) => {
        const number = partition(args);
        chosen.set(args.message, number);
        return number;
      };
    },
  };
}

/**
 * Idempotent, so the client's own retries never write a record twice, and one request in flight
 * per broker, so records of one partition are written in the order they were sent.
 */
const PRODUCER_CONFIG = {
  idempotent: true,
  maxInFlightRequests: 1,
  allowAutoTopicCreation: false,
} as const;

/** A kafkajs producer and how to send through it so that every partition written is answered. */
export interface CoveringProducer {
  readonly producer: Producer;
  /** The partition each message sent went to. */
  readonly partitionOf: PartitionOf;
  /** Sends through `send` (the producer's own sendBatch, or a transaction's). */
  send(messages: readonly TopicMessage[], send: Producer['sendBatch']): Promise<RecordMetadata[]>;
}

export function coveringProducer(kafka: Kafka, config: ProducerConfig = {}): CoveringProducer {
  const { partitionOf, createPartitioner } = rememberingPartitioner();
  const producer = kafka.producer({ ...PRODUCER_CONFIG, ...config, createPartitioner });
  return {
    producer,
    partitionOf,
    send: (messages, send) => sendCovering(messages, partitionOf, send),
  };
}

export function connectProducer(kafka: Kafka): Promise<RecordProducer> {
  return selfHealing(
    () => coveringProducer(kafka),
    ({ producer, send }, records) =>
      send(toMessages(records), (batch) => producer.sendBatch(batch)).then(() => {}),
  );
}

export function connectTransactionalProducer(
  kafka: Kafka,
  transactionalId: string,
  transactionTimeoutMs: number,
): Promise<RecordProducer> {
  const config = { transactionalId, transactionTimeout: transactionTimeoutMs };
  return selfHealing(() => coveringProducer(kafka, config), sendInTransaction);
}

async function sendInTransaction(
  { producer, send }: CoveringProducer,
  records: readonly OutboundRecord[],
) {
  let transaction: Awaited<ReturnType<Producer['transaction']>> | undefined;
  try {
    // The first one also initialises the transactional id (fencing any producer that used
    // it before and aborting its open transaction), so it can be refused for good too: a
    // transactional id the bridge is not authorised for, say.
    transaction = await producer.transaction();
    const open = transaction;
    await send(toMessages(records), (batch) => open.sendBatch(batch));
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
  create: () => CoveringProducer,
  sendWith: (producer: CoveringProducer, records: readonly OutboundRecord[]) => Promise<void>,
): Promise<RecordProducer> {
  const open = async () => {
    const covering = create();
    await covering.producer.connect();
    return covering;
  };
  let current = await open();
  let broken = false;
  return {
    async send(records) {
      if (records.length === 0) return;
      try {
        if (broken) {
          await current.producer.disconnect().catch(() => {});
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
    disconnect: () => current.producer.disconnect(),
  };
}

export function toMessages(records: readonly OutboundRecord[]): TopicMessage[] {
  return records.map(({ topic, partition, key, value, headers }) => ({
    topic,
    message: { key, value, partition, headers: headers ? { ...headers } : undefined },
  }));
}
