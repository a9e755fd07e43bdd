/**
 * kafkajs 2.2.4 can resolve a send without having written some of its partitions, and can write
 * some twice. Its `producer/sendMessages.js` keeps each broker's answer across its retries and,
 * when it retries, sends to each broker without an answer every partition that broker now leads:
 * - if a partition's leader moved to a broker that had already answered (a broker shutting down
 *   or coming back, leadership moving back after a restart), that partition is sent nowhere and
 *   the send resolves without it;
 * - if a partition already answered moved to a broker whose request failed, it is sent to that
 *   broker too, with the next sequence numbers (its first write advanced them): the broker takes
 *   it as new records and the partition holds them twice, answered twice.
 * So every send of the bridge and of the SDK goes through `sendCovering`, which checks that the
 * answer names every partition the send wrote to, once.
 *
 * Outside a transaction, what the answer lacks is sent again, with its partition fixed, until it
 * is answered. That never writes twice: a partition missing from the answer was refused by its
 * old leader (nothing written), or its request was lost with its connection, and then kafkajs
 * took its sequence numbers back, so the same producer sends it with the same ones and the broker
 * answers a duplicate with the offsets it first wrote (idempotence). A partition answered twice
 * was written twice and nothing here can take it back: the SDK's command is then in its topic
 * twice (the bridge runs it once: the same commandId), an at-least-once ending published twice
 * (the same `ce_id`).
 *
 * In a transaction neither is left to stand: the send fails (retryable), the transaction is never
 * committed, and its producer is replaced (producer.ts, sendInTransaction), whose successor's
 * InitProducerId has the coordinator abort it, both copies with it; the outbox sends the same
 * records again in the new producer's first transaction. A missing partition fails it too rather
 * than being sent again inside it: whether the resend is recognised as a duplicate rests on
 * kafkajs having taken back exactly that partition's sequence numbers, and a transaction can
 * afford not to rely on it.
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

/**
 * Sends the messages; resolves with an answer for every partition they were written to. In a
 * transaction (`transactional`), rejects when a partition is answered twice or not at all.
 */
export async function sendCovering(
  messages: readonly TopicMessage[],
  partitionOf: PartitionOf,
  send: BatchSend,
  { transactional = false } = {},
): Promise<RecordMetadata[]> {
  const answers = await send({ topicMessages: byTopic(messages) });
  let missing = uncovered(messages, answers, partitionOf);
  if (transactional) {
    const twice = answeredTwice(answers);
    if (twice.length > 0 || missing.length > 0)
      throw transactionUnsound(twice, missing, partitionOf);
    return answers;
  }
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

/** The partitions (`topic/partition`) that more than one answer names. */
function answeredTwice(answers: readonly RecordMetadata[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const { topicName, partition } of answers) {
    const slot = `${topicName}/${partition}`;
    if (seen.has(slot)) twice.add(slot);
    seen.add(slot);
  }
  return [...twice];
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

function transactionUnsound(
  twice: readonly string[],
  missing: readonly TopicMessage[],
  partitionOf: PartitionOf,
): KafkaWriteFailed {
  const what = [
    ...(twice.length > 0 ? [`written twice to ${twice.join(', ')}`] : []),
    ...(missing.length > 0 ? [`not acknowledged for ${slotsOf(missing, partitionOf)}`] : []),
  ];
  return new KafkaWriteFailed(
    `writing to Kafka failed: kafkajs' send ${what.join(' and ')} (partition leaders moving): ` +
      'the transaction is abandoned, aborted, and its records sent again in a new one',
    {
      details: {
        kafkaError: twice.length > 0 ? 'PartitionsWrittenTwice' : 'PartitionsNotAcknowledged',
        permanent: false,
      },
    },
  );
}

function slotsOf(missing: readonly TopicMessage[], partitionOf: PartitionOf): string {
  return [...new Set(missing.map((m) => `${m.topic}/${partitionOf(m.message) ?? '?'}`))].join(', ');
}

function notCovered(missing: readonly TopicMessage[], partitionOf: PartitionOf): KafkaWriteFailed {
  return new KafkaWriteFailed(
    `writing to Kafka failed: no broker acknowledged ${slotsOf(missing, partitionOf)} after ${MAX_RESENDS} ` +
      'sends (partition leaders moving): the write is retried',
    { details: { kafkaError: 'PartitionsNotAcknowledged', permanent: false } },
  );
}
