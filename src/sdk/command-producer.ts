/**
 * Sends commands to the bridge as it expects them: JSON on the command type's topic, keyed by
 * bizId, partitioned by murmur2 (kafkajs' DefaultPartitioner, as Java's clients), each checked
 * against its schema first.
 */
import { CommandRefused } from '../errors.js';
import type { PositionedProducer } from '../kafka/index.js';
import { type CommandType, type TopicNames, topicNames } from '../schemas/messages/index.js';
import {
  type CommandInput,
  type CommandToSend,
  type PreparedCommand,
  prepareCommand,
} from './commands.js';
import { type KafkaTarget, kafkaToolsFor } from './kafka-target.js';

export interface CommandProducerOptions {
  /** The bridge's topics; default `topicNames()` (prefix `signing-bridge.`). */
  readonly topics?: TopicNames;
}

/** Where a command went. */
export interface SentCommand<T extends CommandType = CommandType> {
  readonly type: T;
  readonly commandId: string;
  readonly bizId: string;
  readonly topic: string;
  readonly partition: number;
  /** A decimal string: offsets may exceed 2^53. */
  readonly offset: string;
  /**
   * The command's fingerprint, as the bridge computes it: waitForOutcome tells this command from
   * another sent with the same commandId by it.
   */
  readonly fingerprint: string;
}

export class CommandProducer {
  readonly #producer: PositionedProducer;
  readonly #topics: TopicNames;

  private constructor(producer: PositionedProducer, topics: TopicNames) {
    this.#producer = producer;
    this.#topics = topics;
  }

  /** Connects an idempotent producer; the topics must exist (the bridge or `topics create`). */
  static async connect(
    target: KafkaTarget,
    options: CommandProducerOptions = {},
  ): Promise<CommandProducer> {
    const producer = await kafkaToolsFor(target).positionedProducer();
    return new CommandProducer(producer, options.topics ?? topicNames());
  }

  /**
   * Checks the command against its schema and sends it, after the sends called before it on this
   * producer: one kafkajs send in flight at a time, those called meanwhile together in the next
   * (docs/sdk.md says why).
   * @throws CommandRefused naming every field that is wrong (nothing is sent)
   * @throws KafkaWriteFailed when Kafka did not take it (`retryable` says whether to try again)
   */
  async send<T extends CommandType>(type: T, command: CommandInput<T>): Promise<SentCommand<T>> {
    const [sent] = await this.#send([prepareCommand(type, command, this.#topics)]);
    return sent as SentCommand<T>;
  }

  /**
   * Checks every command, then sends them all in one request per broker; nothing is sent when
   * one of them is refused. Commands of one bizId and type keep the order given.
   */
  async sendMany(commands: readonly CommandToSend[]): Promise<SentCommand[]> {
    const prepared = commands.map(({ type, command }, index) => {
      try {
        return prepareCommand(type, command as CommandInput<CommandType>, this.#topics);
      } catch (error) {
        if (!(error instanceof CommandRefused)) throw error;
        throw new CommandRefused(`command ${index} of ${commands.length}: ${error.message}`, {
          details: { ...error.details, index },
        });
      }
    });
    return this.#send(prepared);
  }

  close(): Promise<void> {
    return this.#producer.disconnect();
  }

  async #send(prepared: readonly PreparedCommand[]): Promise<SentCommand[]> {
    const positions = await this.#producer.send(prepared.map((p) => p.record));
    return prepared.map(({ type, commandId, bizId, fingerprint }, i) => {
      const { topic, partition, offset } = positions[i] as (typeof positions)[number];
      return { type, commandId, bizId, topic, partition, offset, fingerprint };
    });
  }
}
