/**
 * The demo's side of Kafka, as the bridge's neighbours see it, through the SDK: commands sent
 * with its CommandProducer (checked, keyed by bizId), the events and dead-letter topics read
 * from the start with its EventSubscriber. The one command meant to be malformed goes out as
 * a producer without the SDK would send it, unchecked.
 */
import type { Logger } from 'pino';
import { createKafkaConnection, type PositionedProducer } from '../../src/kafka/index.js';
import type { CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import {
  type BridgeEvent,
  type CommandInput,
  CommandProducer,
  type DeadLetter,
  EventSubscriber,
} from '../../src/sdk/index.js';
import type { StoryCommand } from './commands.js';

export type Arrival = BridgeEvent | DeadLetter;

/** Some commands had no terminal event when the deadline came. */
export class EndingsOverdue extends Error {
  /** Each as `<commandId> (<type>)`. */
  readonly commands: readonly string[];

  constructor(commands: readonly string[]) {
    super(`no terminal event in time for ${commands.join(', ')}`);
    this.commands = commands;
  }
}

export interface Deadline {
  /** Epoch milliseconds. */
  readonly at: number;
  readonly signal?: AbortSignal | undefined;
}

export class DemoKafka {
  readonly #producer: CommandProducer;
  readonly #unchecked: PositionedProducer;
  readonly #topics: TopicNames;
  readonly #events: BridgeEvent[] = [];
  readonly #endings = new Map<string, BridgeEvent>();
  readonly #typeOf = new Map<string, CommandType>();
  readonly #listeners = new Set<() => void>();
  #subscriber: EventSubscriber | undefined;
  #failure: Error | undefined;
  #deadLetters = 0;

  private constructor(
    producer: CommandProducer,
    unchecked: PositionedProducer,
    topics: TopicNames,
  ) {
    this.#producer = producer;
    this.#unchecked = unchecked;
    this.#topics = topics;
  }

  /** Connects once the bridge created the topics: the broker may create missing ones itself. */
  static async connect(options: {
    brokers: string[];
    topics: TopicNames;
    log: Logger;
    onArrival: (arrival: Arrival) => void;
  }): Promise<DemoKafka> {
    const { brokers, topics, log, onArrival } = options;
    const target = { brokers, clientId: 'signing-bridge-demo', log };
    const producer = await CommandProducer.connect(target, { topics });
    const unchecked = await createKafkaConnection({ ...target }).positionedProducer();
    const io = new DemoKafka(producer, unchecked, topics);
    const subscriber = await EventSubscriber.start(target, {
      topics,
      from: 'beginning',
      onEvent: (event) => io.#take(event, onArrival),
      onDeadLetter: (letter) => {
        io.#deadLetters++;
        onArrival(letter);
      },
    });
    io.#subscriber = subscriber;
    subscriber.done.catch((error: unknown) => io.#fail(error as Error));
    return io;
  }

  /** Sends one command on its type's topic, keyed by its bizId, as other services do. */
  async send({ type, command, unchecked }: StoryCommand): Promise<void> {
    if (unchecked) {
      const record = { topic: this.#topics.commands[type], key: command.bizId };
      await this.#unchecked.send([{ ...record, value: JSON.stringify(command) }]);
    } else {
      await this.#producer.send(type, command as CommandInput<typeof type>);
    }
    this.#typeOf.set(command.commandId, type);
  }

  get sent(): number {
    return this.#typeOf.size;
  }

  get deadLetters(): number {
    return this.#deadLetters;
  }

  /** The first terminal event of each command that has one, in arrival order. */
  get endings(): BridgeEvent[] {
    return [...this.#endings.values()];
  }

  /** Every event of the command so far, step events included, in arrival order. */
  eventsOf(commandId: string): BridgeEvent[] {
    return this.#events.filter((event) => event.commandId === commandId);
  }

  /** The command's first terminal event, once it arrived. */
  endingOf(commandId: string): BridgeEvent | undefined {
    return this.#endings.get(commandId);
  }

  /** Resolves once each command has its terminal event; rejects at the deadline or on abort. */
  waitForEndings(commandIds: readonly string[], deadline: Deadline): Promise<void> {
    const missing = () => commandIds.filter((id) => !this.#endings.has(id));
    return new Promise((resolve, reject) => {
      const finish = (error?: unknown) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        deadline.signal?.removeEventListener('abort', onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      const check = () => {
        if (this.#failure) finish(this.#failure);
        else if (missing().length === 0) finish();
      };
      const onAbort = () => finish(deadline.signal?.reason);
      const timer = setTimeout(
        () => finish(new EndingsOverdue(missing().map((id) => `${id} (${this.#typeOf.get(id)})`))),
        Math.max(0, deadline.at - Date.now()),
      );
      this.#listeners.add(check);
      deadline.signal?.addEventListener('abort', onAbort, { once: true });
      if (deadline.signal?.aborted) onAbort();
      else check();
    });
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      this.#subscriber?.stop(),
      this.#producer.close(),
      this.#unchecked.disconnect(),
    ]);
  }

  #take(event: BridgeEvent, onArrival: (arrival: Arrival) => void): void {
    this.#events.push(event);
    const { commandId } = event;
    if (event.terminal && commandId !== undefined && !this.#endings.has(commandId)) {
      this.#endings.set(commandId, event);
    }
    onArrival(event);
    for (const listener of this.#listeners) listener();
  }

  #fail(error: Error): void {
    this.#failure = error;
    for (const listener of this.#listeners) listener();
  }
}
