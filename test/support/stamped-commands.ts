import { type Message, Partitioners, type Producer } from 'kafkajs';
import type { Command, CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import { harnessKafkaClient } from './harness-kafka-client.js';

/**
 * Writes commands with the record timestamp a test gives (an old record, say), keyed by bizId
 * and partitioned by murmur2 as the SDK does; the SDK itself always stamps them now.
 */
export class StampedCommands {
  readonly #producer: Producer;
  readonly #topics: TopicNames;

  private constructor(producer: Producer, topics: TopicNames) {
    this.#producer = producer;
    this.#topics = topics;
  }

  static async connect(brokers: string[], topics: TopicNames): Promise<StampedCommands> {
    const producer = harnessKafkaClient(brokers).producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
    });
    await producer.connect();
    return new StampedCommands(producer, topics);
  }

  /** The command on its type's topic, stamped `timestampMs` (or now, by the broker's client). */
  async send(type: CommandType, command: Command, timestampMs?: number): Promise<void> {
    const timestamp = timestampMs === undefined ? undefined : String(timestampMs);
    await this.#producer.send({
      topic: this.#topics.commands[type],
      messages: [{ key: command.bizId, value: JSON.stringify(command), timestamp }],
    });
  }

  /** Records of another topic as given (a ledger tombstone, say). */
  async sendRecords(topic: string, messages: Message[]): Promise<void> {
    await this.#producer.send({ topic, messages });
  }

  close(): Promise<void> {
    return this.#producer.disconnect();
  }
}
