/**
 * Producers that tell where each record went (partition and offset), for the SDK and the
 * operator commands. Records are partitioned by kafkajs' DefaultPartitioner: murmur2 of the key,
 * as Java's clients do, so a bizId's commands share one partition number across topics.
 */
import type {
  Kafka,
  Message,
  PartitionerArgs,
  Producer,
  RecordMetadata,
  TopicMessages,
} from 'kafkajs';
import type { KafkaWriteFailed } from '../errors.js';
import { Partitioners } from './kafkajs.js';
import type {
  ExclusiveProducer,
  PositionedProducer,
  PositionedTransaction,
  RecordPosition,
} from './tool-types.js';
import type { OutboundRecord } from './types.js';
import { writeFailed } from './write-failure.js';

/** The partition kafkajs chose for each message it was handed, by message. */
type Chosen = WeakMap<Message, number>;

/**
 * Replaces its kafkajs producer after a send Kafka refused for good, as the bridge's own does
 * (producer.ts): kafkajs would otherwise refuse every later write to the partitions of that
 * request (OUT_OF_ORDER_SEQUENCE_NUMBER).
 */
export async function connectPositionedProducer(kafka: Kafka): Promise<PositionedProducer> {
  const chosen: Chosen = new WeakMap();
  const open = async () => {
    const producer = kafka.producer(producerConfig(chosen));
    await producer.connect();
    return producer;
  };
  let current = await open();
  let refused = false;
  return {
    async send(records) {
      if (refused) {
        await current.disconnect().catch(() => {});
        current = await open();
        refused = false;
      }
      const producer = current;
      return sendPositioned(records, chosen, (batch) => producer.sendBatch(batch)).catch(
        (error: KafkaWriteFailed) => {
          refused ||= error.details.permanent;
          throw error;
        },
      );
    },
    disconnect: () => current.disconnect(),
  };
}

export async function connectExclusiveProducer(
  kafka: Kafka,
  transactionalId: string,
): Promise<ExclusiveProducer> {
  const chosen: Chosen = new WeakMap();
  const producer: Producer = kafka.producer({ ...producerConfig(chosen), transactionalId });
  await producer.connect();
  return {
    async begin(): Promise<PositionedTransaction> {
      const transaction = await producer.transaction().catch((error: unknown) => {
        throw writeFailed(error);
      });
      return {
        send: (records) => sendPositioned(records, chosen, (batch) => transaction.sendBatch(batch)),
        commit: () =>
          transaction.commit().catch((error: unknown) => Promise.reject(writeFailed(error))),
        abort: () => transaction.abort(),
      };
    },
    disconnect: () => producer.disconnect(),
  };
}

/** Idempotent with one request in flight per broker, as the bridge's own producer. */
function producerConfig(chosen: Chosen) {
  return {
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: () => {
      const partition = Partitioners.DefaultPartitioner();
      return (args: PartitionerArgs) => {
        const number = partition(args);
        chosen.set(args.message, number);
        return number;
      };
    },
  };
}

async function sendPositioned(
  records: readonly OutboundRecord[],
  chosen: Chosen,
  send: (batch: { topicMessages: TopicMessages[] }) => Promise<RecordMetadata[]>,
): Promise<RecordPosition[]> {
  if (records.length === 0) return [];
  const messages = records.map(({ topic, partition, key, value, headers }) => ({
    topic,
    message: { key, value, partition, headers: headers ? { ...headers } : undefined } as Message,
  }));
  const topics = new Map<string, Message[]>();
  for (const { topic, message } of messages) {
    const list = topics.get(topic);
    if (list) list.push(message);
    else topics.set(topic, [message]);
  }
  let metadata: RecordMetadata[];
  try {
    metadata = await send({
      topicMessages: [...topics].map(([topic, list]) => ({ topic, messages: list })),
    });
  } catch (error) {
    throw writeFailed(error);
  }
  return positionsOf(messages, metadata, chosen);
}

/** Records of one partition in one request take consecutive offsets from its base offset. */
function positionsOf(
  messages: ReadonlyArray<{ topic: string; message: Message }>,
  metadata: readonly RecordMetadata[],
  chosen: Chosen,
): RecordPosition[] {
  const base = new Map(
    metadata.map((m) => [`${m.topicName}/${m.partition}`, BigInt(m.baseOffset ?? m.offset ?? -1)]),
  );
  const taken = new Map<string, bigint>();
  return messages.map(({ topic, message }) => {
    const partition = message.partition ?? chosen.get(message) ?? -1;
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
