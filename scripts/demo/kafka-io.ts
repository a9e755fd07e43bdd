/**
 * The demo's side of Kafka, as the bridge's neighbours see it: commands produced as JSON keyed
 * by bizId on their type's topic, and the events and dead-letter topics read from the start.
 * It goes through src/kafka, the one module that speaks to the Kafka client library.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  createKafkaConnection,
  type FetchedBatch,
  type GroupConsumer,
  type InboundRecord,
  type RecordProducer,
} from '../../src/kafka/index.js';
import type { CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import {
  type Arrival,
  type DeadLetterArrival,
  deadLetterArrival,
  type EventArrival,
  eventArrival,
} from './arrivals.js';

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
  readonly #producer: RecordProducer;
  readonly #consumer: GroupConsumer;
  readonly #topics: TopicNames;
  readonly #events: EventArrival[] = [];
  readonly #endings = new Map<string, EventArrival>();
  readonly #typeOf = new Map<string, CommandType>();
  readonly #listeners = new Set<() => void>();
  #failure: Error | undefined;
  #deadLetters = 0;

  private constructor(producer: RecordProducer, consumer: GroupConsumer, topics: TopicNames) {
    this.#producer = producer;
    this.#consumer = consumer;
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
    const kafka = createKafkaConnection({ brokers, clientId: 'signing-bridge-demo', log });
    const producer = await kafka.producer();
    const reader = `demo-reader-${randomUUID()}`;
    const consumer = kafka.consumer({ groupId: reader, instanceId: reader });
    const io = new DemoKafka(producer, consumer, topics);
    await consumer.run([topics.events, topics.deadLetter], {
      onBatch: (batch) => io.#take(batch, onArrival),
      onAssignment: () => {},
      onCrash: (error, restarting) => {
        if (!restarting) io.#fail(error);
      },
    });
    return io;
  }

  /** Produces one command on its type's topic, keyed by its bizId, as other services do. */
  async send(type: CommandType, command: { readonly commandId: string; readonly bizId: string }) {
    const record = { topic: this.#topics.commands[type], key: command.bizId };
    await this.#producer.send([{ ...record, value: JSON.stringify(command) }]);
    this.#typeOf.set(command.commandId, type);
  }

  get sent(): number {
    return this.#typeOf.size;
  }

  get deadLetters(): number {
    return this.#deadLetters;
  }

  /** The first terminal event of each command that has one, in arrival order. */
  get endings(): EventArrival[] {
    return [...this.#endings.values()];
  }

  /** Every event of the command so far, step events included, in arrival order. */
  eventsOf(commandId: string): EventArrival[] {
    return this.#events.filter((arrival) => arrival.event.correlationId === commandId);
  }

  /** The command's first terminal event, once it arrived. */
  endingOf(commandId: string): EventArrival | undefined {
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
    await Promise.allSettled([this.#consumer.stop(), this.#producer.disconnect()]);
  }

  #take(batch: FetchedBatch, onArrival: (arrival: Arrival) => void): void {
    for (const record of batch.records) {
      const arrival =
        batch.topic === this.#topics.deadLetter ? this.#deadLetter(record) : this.#event(record);
      if (arrival) onArrival(arrival);
    }
    const last = batch.records.at(-1);
    if (last) batch.resolve(last.offset);
    for (const listener of this.#listeners) listener();
  }

  #event(record: InboundRecord): EventArrival | undefined {
    const arrival = eventArrival(record);
    if (!arrival) return undefined;
    this.#events.push(arrival);
    const commandId = arrival.event.correlationId;
    if (arrival.terminal && commandId !== undefined && !this.#endings.has(commandId)) {
      this.#endings.set(commandId, arrival);
    }
    return arrival;
  }

  #deadLetter(record: InboundRecord): DeadLetterArrival {
    this.#deadLetters++;
    return deadLetterArrival(record);
  }

  #fail(error: Error): void {
    this.#failure = error;
    for (const listener of this.#listeners) listener();
  }
}
