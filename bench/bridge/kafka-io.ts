/**
 * The benchmark's side of Kafka, through the project's own wrapper (src/kafka): the topics of
 * one run, and commands produced as other services would (JSON, key = bizId), each remembered
 * with the time it was produced so its terminal event can say how long it took.
 */
import pino from 'pino';
import { createKafkaConnection, type KafkaConnection } from '../../src/kafka/index.js';
import type { CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import type { Planned } from './workload.js';

export const PARTITIONS = 12;
const RECORDS_PER_REQUEST = 1_000;

export function benchKafka(brokers: string[]): KafkaConnection {
  const log = pino({ name: 'bench-kafka', level: 'fatal' }, pino.destination(2));
  return createKafkaConnection({ brokers, clientId: 'bench', log, topicPartitions: PARTITIONS });
}

export async function createTopics(kafka: KafkaConnection, topics: TopicNames): Promise<void> {
  const admin = await kafka.admin();
  const spec = (topic: string, compacted = false) => ({ topic, partitions: PARTITIONS, compacted });
  try {
    await admin.ensureTopics([
      ...Object.values(topics.commands).map((topic) => spec(topic)),
      spec(topics.ledger, true),
      spec(topics.events),
      spec(topics.deadLetter),
    ]);
  } finally {
    await admin.disconnect();
  }
}

export interface SentCommand {
  readonly type: CommandType;
  /** Which part of a run sent it, e.g. `backlog` or `paced`. */
  readonly phase: string;
  /** Date.now() just before it was handed to the producer. */
  readonly producedAt: number;
}

/** Produces commands and remembers each one by commandId. */
export class CommandWriter {
  readonly sent = new Map<string, SentCommand>();
  readonly #kafka: KafkaConnection;
  readonly #topics: TopicNames;
  #producer: Awaited<ReturnType<KafkaConnection['producer']>> | undefined;

  constructor(kafka: KafkaConnection, topics: TopicNames) {
    this.#kafka = kafka;
    this.#topics = topics;
  }

  async send(commands: readonly Planned[], phase: string): Promise<void> {
    this.#producer ??= await this.#kafka.producer();
    for (let start = 0; start < commands.length; start += RECORDS_PER_REQUEST) {
      const chunk = commands.slice(start, start + RECORDS_PER_REQUEST);
      const producedAt = Date.now();
      for (const { type, command } of chunk) {
        this.sent.set(command.commandId, { type, phase, producedAt });
      }
      await this.#producer.send(
        chunk.map(({ type, command }) => ({
          topic: this.#topics.commands[type],
          key: command.bizId,
          value: JSON.stringify(command),
        })),
      );
    }
  }

  async close(): Promise<void> {
    await this.#producer?.disconnect();
  }
}
