/**
 * The benchmark's side of Kafka: the topics of one run (through src/kafka), and commands produced
 * as other services would, with the SDK, each remembered with the time it was produced so its
 * terminal event can say how long it took.
 */
import pino from 'pino';
import { createKafkaConnection, type KafkaConnection } from '../../src/kafka/index.js';
import type { CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import { CommandProducer, type CommandToSend } from '../../src/sdk/index.js';
import { topicTable } from '../../src/topics/table.js';
import type { Planned } from './workload.js';

export const PARTITIONS = 12;
const RECORDS_PER_REQUEST = 1_000;

export function benchKafka(brokers: string[]): KafkaConnection {
  const log = pino({ name: 'bench-kafka', level: 'fatal' }, pino.destination(2));
  return createKafkaConnection({
    brokers,
    clientId: 'bench',
    log,
    topicLayout: { partitions: PARTITIONS },
  });
}

export async function createTopics(kafka: KafkaConnection, topics: TopicNames): Promise<void> {
  const admin = await kafka.admin();
  try {
    await admin.ensureTopics(topicTable(topics, kafka.topicLayout));
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

/** Produces commands through the SDK, and remembers each one by commandId. */
export class CommandWriter {
  readonly sent = new Map<string, SentCommand>();
  readonly #brokers: readonly string[];
  readonly #topics: TopicNames;
  #producer: Promise<CommandProducer> | undefined;

  constructor(brokers: readonly string[], topics: TopicNames) {
    this.#brokers = brokers;
    this.#topics = topics;
  }

  async send(commands: readonly Planned[], phase: string): Promise<void> {
    this.#producer ??= CommandProducer.connect(
      { brokers: [...this.#brokers], clientId: 'bench' },
      { topics: this.#topics },
    );
    const producer = await this.#producer;
    for (let start = 0; start < commands.length; start += RECORDS_PER_REQUEST) {
      const chunk = commands.slice(start, start + RECORDS_PER_REQUEST);
      const producedAt = Date.now();
      for (const { type, command } of chunk) {
        this.sent.set(command.commandId, { type, phase, producedAt });
      }
      await producer.sendMany(chunk as readonly CommandToSend[]);
    }
  }

  async close(): Promise<void> {
    await (await this.#producer)?.close();
  }
}
