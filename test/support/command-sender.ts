import { type IHeaders, Partitioners, type Producer } from 'kafkajs';
import type { Command, CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import { harnessKafkaClient } from './harness-kafka-client.js';

/** Produces commands the way other services do: JSON value, key = bizId, murmur2 partitioning. */
export class CommandSender {
  readonly #producer: Producer;
  readonly #topics: TopicNames;

  private constructor(producer: Producer, topics: TopicNames) {
    this.#producer = producer;
    this.#topics = topics;
  }

  static async connect(brokers: string[], topics: TopicNames): Promise<CommandSender> {
    const producer = harnessKafkaClient(brokers).producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
    });
    await producer.connect();
    return new CommandSender(producer, topics);
  }

  /** Sends in the order given; commands of one type and bizId keep that order in their topic. */
  async send(commands: ReadonlyArray<{ type: CommandType; command: Command }>): Promise<void> {
    const byTopic = new Map<string, Array<{ key: string; value: string }>>();
    for (const { type, command } of commands) {
      const topic = this.#topics.commands[type];
      const messages = byTopic.get(topic) ?? [];
      byTopic.set(topic, messages);
      messages.push({ key: command.bizId, value: JSON.stringify(command) });
    }
    const topicMessages = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    await this.#producer.sendBatch({ topicMessages });
  }

  async sendRaw(
    topic: string,
    key: string | null,
    value: string | Buffer | null,
    headers?: IHeaders,
  ) {
    await this.#producer.send({ topic, messages: [{ key, value, headers }] });
  }

  close(): Promise<void> {
    return this.#producer.disconnect();
  }
}
