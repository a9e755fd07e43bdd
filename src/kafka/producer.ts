import {
  type ICustomPartitioner,
  type Kafka,
  type Message,
  Partitioners,
  type Producer,
  type ProducerConfig,
  type RecordMetadata,
} from 'kafkajs';
import type { KafkaWriteFailed } from '../errors.js';
import { brokerLossRetry, outboxRetry } from './client-retry.js';
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
 * per broker, so records of one partition are written in the order they were sent. Its tries
 * outlast a broker's fencing (client-retry.ts), whatever NODE_ENV says: a send does not fail at
 * every node stopped or killed.
 */
const producerConfig = () =>
  ({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    retry: brokerLossRetry(),
  }) satisfies ProducerConfig;

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
  const transactional = config.transactionalId !== undefined;
  const producer = kafka.producer({ ...producerConfig(), ...config, createPartitioner });
  return {
    producer,
    partitionOf,
    send: (messages, send) => sendCovering(messages, partitionOf, send, { transactional }),
  };
}

/** The outbox's producer in at-least-once mode; it tries for less than a step's margin (client-retry.ts). */
export function connectProducer(kafka: Kafka): Promise<RecordProducer> {
  return selfHealing(
    () => coveringProducer(kafka, { retry: outboxRetry() }),
    ({ producer, send }, records) =>
      send(toMessages(records), (batch) => producer.sendBatch(batch)).then(() => {}),
    (failed) => failed.details.permanent,
  );
}

export function connectTransactionalProducer(
  kafka: Kafka,
  transactionalId: string,
  transactionTimeoutMs: number,
): Promise<RecordProducer> {
  const config = {
    transactionalId,
    transactionTimeout: transactionTimeoutMs,
    retry: outboxRetry(),
  };
  // Whatever failed, the transaction is abandoned with its producer: see sendInTransaction.
  return selfHealing(
    () => coveringProducer(kafka, config),
    sendInTransaction,
    () => true,
  );
}

/**
 * One send, one transaction. A transaction that failed anywhere (beginning it, a produce
 * request, EndTxn) is never ended by the producer that began it: that producer is replaced, and
 * the new one's InitProducerId, under the same transactional id, bumps the epoch (fencing the
 * old producer) and has the coordinator finish what the old one left: an open transaction is
 * aborted, a commit the coordinator had logged is completed. The outbox then sends the same
 * records again, in the new producer's first transaction.
 *
 * Not the same producer, aborting and going on, because kafkajs cannot:
 * - when EndTxn fails (the coordinator moved, the connection dropped) its transaction manager
 *   stays in COMMITTING or ABORTING, where it refuses to begin, abort or initialise anything:
 *   every later transaction would throw;
 * - it keeps its sequence numbers across transactions and takes back those of a produce request
 *   whose answer was lost, which the broker may have written: sent again in the next
 *   transaction, the same records would be answered as duplicates of the aborted ones and
 *   nothing written.
 *
 * Sending again is safe for read_committed readers (the only ones exactly-once speaks of): a
 * transaction whose EndTxn(commit) never reached the coordinator is aborted by the fencing, so
 * only the new one is seen. When the commit's outcome is unknown (the coordinator logged it and
 * the answer was lost), the coordinator completes it and the new transaction writes the same
 * records a second time: the same events, with the same `ce_id`, and the same ledger entries,
 * the later copy superseding the earlier with what it already said. That is the at-least-once
 * contract of every outbox write (a write is sent until acknowledged), which readers meet by
 * `ce_id`; docs/design.md, "Delivery guarantee", states it as the one case where exactly-once
 * mode publishes an ending twice.
 */
async function sendInTransaction(
  { producer, send }: CoveringProducer,
  records: readonly OutboundRecord[],
) {
  // The first one also initialises the transactional id (fencing any producer that used it
  // before and aborting its open transaction), so it can be refused for good too: a
  // transactional id the bridge is not authorised for, say.
  const transaction = await producer.transaction();
  await send(toMessages(records), (batch) => transaction.sendBatch(batch));
  await transaction.commit();
}

/**
 * Takes `transactionalId` from whoever holds it, writing nothing: a producer under that id
 * initialises (InitProducerId), which bumps the id's epoch and has the coordinator abort the
 * transaction its holder left open; from then on the broker refuses that holder's produce
 * requests and commits under the old epoch. The bridge uses it on the id of a partition's
 * previous holder that never released it (docs/design.md, "When the group changes"): a process
 * frozen in the middle of a transaction would otherwise commit it once thawed, its lease long
 * over, whenever the broker had not aborted it yet.
 */
export async function fenceTransactionalId(
  kafka: Kafka,
  transactionalId: string,
  transactionTimeoutMs: number,
): Promise<void> {
  const producer = kafka.producer({
    ...producerConfig(),
    transactionalId,
    transactionTimeout: transactionTimeoutMs,
  });
  try {
    await producer.connect();
    // kafkajs initialises the transactional id at the first transaction; one with nothing in it
    // ends without a request.
    const transaction = await producer.transaction();
    await transaction.abort();
  } catch (error) {
    throw writeFailed(error);
  } finally {
    await producer.disconnect().catch(() => {});
  }
}

/**
 * A producer that replaces itself, before the next send, after a send that `unusable` says left
 * it so. An idempotent one after a send Kafka refused for good: kafkajs counts its sequence
 * numbers per partition before a request and takes them back for every partition of a request
 * that failed, including the partitions the broker did write, so every later write to those
 * partitions would fail with OUT_OF_ORDER_SEQUENCE_NUMBER; a new producer has a new producer id
 * and fresh sequences. A transactional one after any failure (sendInTransaction says why); it
 * keeps its transactional id: the new one fences the old and has its open transaction aborted.
 */
async function selfHealing(
  create: () => CoveringProducer,
  sendWith: (producer: CoveringProducer, records: readonly OutboundRecord[]) => Promise<void>,
  unusable: (failed: KafkaWriteFailed) => boolean,
): Promise<RecordProducer> {
  const open = async () => {
    const covering = create();
    await covering.producer.connect().catch(async (error: unknown) => {
      await covering.producer.disconnect().catch(() => {});
      throw error;
    });
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
        broken ||= unusable(failed);
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
