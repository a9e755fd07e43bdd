import { createKafkaConnection, type PositionedProducer } from '../../src/kafka/index.js';
import type { RecordHeaders } from '../../src/kafka/types.js';
import type { Command, CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import { CommandProducer, type CommandToSend } from '../../src/sdk/index.js';
import { testLogger } from './test-logger.js';

/**
 * Produces commands the way other services do, through the SDK: checked against their schema,
 * JSON, key = bizId, murmur2 partitioning. `sendRaw` writes a record as given, unchecked, for
 * the records a careless producer would write.
 */
export class CommandSender {
  readonly #producer: CommandProducer;
  readonly #brokers: string[];
  #raw: Promise<PositionedProducer> | undefined;

  private constructor(producer: CommandProducer, brokers: string[]) {
    this.#producer = producer;
    this.#brokers = brokers;
  }

  static async connect(brokers: string[], topics: TopicNames): Promise<CommandSender> {
    const producer = await CommandProducer.connect({ brokers, clientId: 'harness' }, { topics });
    return new CommandSender(producer, brokers);
  }

  /** Sends in the order given; commands of one type and bizId keep that order in their topic. */
  async send(commands: ReadonlyArray<{ type: CommandType; command: Command }>): Promise<void> {
    await this.#producer.sendMany(commands as readonly CommandToSend[]);
  }

  async sendRaw(
    topic: string,
    key: string | Buffer | null,
    value: string | Buffer | null,
    headers?: RecordHeaders,
  ): Promise<{ readonly partition: number; readonly offset: string } | undefined> {
    this.#raw ??= createKafkaConnection({
      brokers: this.#brokers,
      clientId: 'harness',
      log: testLogger('harness'),
    }).positionedProducer();
    const [position] = await (await this.#raw).send([{ topic, key, value, headers }]);
    return position;
  }

  async close(): Promise<void> {
    await this.#producer.close();
    await (await this.#raw)?.disconnect();
  }
}
