/**
 * Producers that tell where each record went (partition and offset), for the SDK and the
 * operator commands: partitioned as the bridge's own producer does (producer.ts), and covering
 * every partition written as it does (covering-send.ts).
 */
import type { Kafka, Message, RecordMetadata } from 'kafkajs';
import type { KafkaWriteFailed } from '../errors.js';
import type { TopicMessage } from './covering-send.js';
import { type CoveringProducer, coveringProducer, toMessages } from './producer.js';
import { SendQueue } from './send-queue.js';
import type {
  ExclusiveProducer,
  PositionedProducer,
  PositionedTransaction,
  RecordPosition,
} from './tool-types.js';
import type { OutboundRecord } from './types.js';
import { writeFailed } from './write-failure.js';

/**
 * One kafkajs send in flight at a time, what callers send meanwhile queued and sent together
 * next (send-queue.ts says why). Replaces its kafkajs producer after a send Kafka refused for
 * good, as the bridge's own does (producer.ts): kafkajs would otherwise refuse every later write
 * to the partitions of that request (OUT_OF_ORDER_SEQUENCE_NUMBER).
 */
export async function connectPositionedProducer(kafka: Kafka): Promise<PositionedProducer> {
  const open = async () => {
    const covering = coveringProducer(kafka);
    await covering.producer.connect();
    return covering;
  };
  let current = await open();
  let refused = false;
  const queue = new SendQueue(async (records) => {
    if (refused) {
      await current.producer.disconnect().catch(() => {});
      current = await open().catch((error: unknown) => Promise.reject(writeFailed(error)));
      refused = false;
    }
    const { producer } = current;
    return sendPositioned(records, current, (batch) => producer.sendBatch(batch)).catch(
      (error: KafkaWriteFailed) => {
        refused ||= error.details.permanent;
        throw error;
      },
    );
  });
  return {
    send: (records) => queue.send(records),
    async disconnect() {
      await queue.idle();
      await current.producer.disconnect();
    },
  };
}

export async function connectExclusiveProducer(
  kafka: Kafka,
  transactionalId: string,
): Promise<ExclusiveProducer> {
  const covering = coveringProducer(kafka, { transactionalId });
  const { producer } = covering;
  await producer.connect();
  return {
    async begin(): Promise<PositionedTransaction> {
      const transaction = await producer.transaction().catch((error: unknown) => {
        throw writeFailed(error);
      });
      return {
        send: (records) =>
          sendPositioned(records, covering, (batch) => transaction.sendBatch(batch)),
        commit: () =>
          transaction.commit().catch((error: unknown) => Promise.reject(writeFailed(error))),
        abort: () => transaction.abort(),
      };
    },
    disconnect: () => producer.disconnect(),
  };
}

async function sendPositioned(
  records: readonly OutboundRecord[],
  covering: CoveringProducer,
  send: Parameters<CoveringProducer['send']>[1],
): Promise<RecordPosition[]> {
  if (records.length === 0) return [];
  const messages = toMessages(records);
  let metadata: RecordMetadata[];
  try {
    metadata = await covering.send(messages, send);
  } catch (error) {
    throw writeFailed(error);
  }
  return positionsOf(messages, metadata, covering.partitionOf);
}

/** Records of one partition in one request take consecutive offsets from its base offset. */
function positionsOf(
  messages: readonly TopicMessage[],
  metadata: readonly RecordMetadata[],
  partitionOf: (message: Message) => number | undefined,
): RecordPosition[] {
  const base = new Map(
    metadata.map((m) => [`${m.topicName}/${m.partition}`, BigInt(m.baseOffset ?? m.offset ?? -1)]),
  );
  const taken = new Map<string, bigint>();
  return messages.map(({ topic, message }) => {
    const partition = partitionOf(message) ?? -1;
    const slot = `${topic}/${partition}`;
    const index = taken.get(slot) ?? 0n;
    taken.set(slot, index + 1n);
    const offset = base.get(slot);
    if (offset === undefined || offset < 0n || partition < 0) {
      throw new Error(`Kafka did not say where a record for ${topic} went`);
    }
    return { topic, partition, offset: (offset + index).toString() };
  });
}
