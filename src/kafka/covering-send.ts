/**
 * kafkajs 2.2.4 can resolve a send without having written some of its partitions. Its
 * `producer/sendMessages.js` keeps each broker's answer across its retries and, when it retries,
 * sends only to brokers without one; if a partition's leader moved to a broker that had already
 * answered (a broker shutting down or coming back, leadership moving back after a restart), that
 * partition is sent nowhere and the send resolves. So every send of the bridge and of the SDK
 * goes through `sendCovering`: the answer must name every partition the send wrote to, and what
 * it lacks is sent again, with its partition fixed, until it does.
 *
 * Sending again never writes twice: a partition missing from the answer was refused by its old
 * leader (nothing written), or its request was lost with its connection, and then kafkajs took
 * its sequence numbers back, so the same producer sends it with the same ones and the broker
 * answers a duplicate with the offsets it first wrote (idempotence).
 */
import type { Message, RecordMetadata, TopicMessages } from 'kafkajs';
import { KafkaWriteFailed } from '../errors.js';

/** A message on its way to a topic, as kafkajs takes it. */
export interface TopicMessage {
  readonly topic: string;
  readonly message: Message;
}

export type BatchSend = (batch: { topicMessages: TopicMessages[] }) => Promise<RecordMetadata[]>;

/** The partition each message went to: its own, or what the producer's partitioner chose. */
export type PartitionOf = (message: Message) => number | undefined;

/**
 * How many times the missing partitions are sent again. Each send already retries within
 * kafkajs (refreshing the metadata); a partition missing three times over is not left silent.
 */
const MAX_RESENDS = 3;

/** Sends the messages; resolves with an answer for every partition they were written to. */
export async function sendCovering(
  messages: readonly TopicMessage[],
  partitionOf: PartitionOf,
  send: BatchSend,
): Promise<RecordMetadata[]> {
  const answers = await send({ topicMessages: byTopic(messages) });
  let missing = uncovered(messages, answers, partitionOf);
  for (let resend = 1; missing.length > 0; resend++) {
    if (resend > MAX_RESENDS) throw notCovered(missing, partitionOf);
    answers.push(...(await send({ topicMessages: byTopic(missing) })));
    missing = uncovered(missing, answers, partitionOf);
  }
  return answers;
}

/** The messages whose partition the answers do not name, each with its partition fixed. */
function uncovered(
  messages: readonly TopicMessage[],
  answers: readonly RecordMetadata[],
  partitionOf: PartitionOf,
): TopicMessage[] {
  const covered = new Set(answers.map(({ topicName, partition }) => `${topicName}/${partition}`));
  const missing: TopicMessage[] = [];
  for (const entry of messages) {
    const partition = partitionOf(entry.message);
    if (partition !== undefined && covered.has(`${entry.topic}/${partition}`)) continue;
    missing.push(
      partition === undefined ? entry : { ...entry, message: { ...entry.message, partition } },
    );
  }
  return missing;
}

export function byTopic(messages: readonly TopicMessage[]): TopicMessages[] {
  const topics = new Map<string, Message[]>();
  for (const { topic, message } of messages) {
    const list = topics.get(topic);
    if (list) list.push(message);
    else topics.set(topic, [message]);
  }
  return [...topics].map(([topic, list]) => ({ topic, messages: list }));
}

function notCovered(missing: readonly TopicMessage[], partitionOf: PartitionOf): KafkaWriteFailed {
  const where = [...new Set(missing.map((m) => `${m.topic}/${partitionOf(m.message) ?? '?'}`))];
  return new KafkaWriteFailed(
    `writing to Kafka failed: no broker acknowledged ${where.join(', ')} after ${MAX_RESENDS} ` +
      'sends (partition leaders moving): the write is retried',
    { details: { kafkaError: 'PartitionsNotAcknowledged', permanent: false } },
  );
}
