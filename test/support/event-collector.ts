import { randomUUID } from 'node:crypto';
import type { Consumer, IHeaders } from 'kafkajs';
import { type CloudEvent, decodeEvent } from '../../src/producers/index.js';
import { type CommandType, isTerminal, type TopicNames } from '../../src/schemas/messages/index.js';
import { harnessKafkaClient } from './harness-kafka-client.js';

/** Marks a test's own record on the events topic: everything before it has been read once it is. */
export const SENTINEL_HEADER = 'test-sentinel';

export interface ReceivedEvent {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | undefined;
  readonly event: CloudEvent;
  /** The event's data, as published. */
  readonly data: Record<string, unknown> & { commandId?: string; commandType?: CommandType };
  readonly terminal: boolean;
}

export interface DeadLetter {
  readonly key: string | undefined;
  readonly value: Buffer | null;
  readonly headers: Record<string, string>;
}

/** Reads the events and dead-letter topics from the beginning, as a read_committed subscriber. */
export class EventCollector {
  readonly events: ReceivedEvent[] = [];
  /** Per sentinel (a test's own record with the SENTINEL_HEADER), the partitions it was read on. */
  readonly sentinels = new Map<string, Set<number>>();
  readonly deadLetters: DeadLetter[] = [];
  readonly #consumer: Consumer;
  readonly #terminals = new Map<string, ReceivedEvent[]>();
  #terminalCount = 0;
  #listeners = new Set<() => void>();

  private constructor(consumer: Consumer) {
    this.#consumer = consumer;
  }

  static async start(brokers: string[], topics: TopicNames): Promise<EventCollector> {
    const consumer = harnessKafkaClient(brokers).consumer({
      groupId: `collector-${randomUUID()}`,
      maxWaitTimeInMs: 100,
    });
    const collector = new EventCollector(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [topics.events, topics.deadLetter], fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) {
          if (batch.topic === topics.deadLetter) collector.#addDeadLetter(message);
          else collector.#addEvent(batch.partition, message);
        }
        for (const listener of collector.#listeners) listener();
      },
    });
    return collector;
  }

  /** Terminal events seen so far, repeats included. */
  get terminalCount(): number {
    return this.#terminalCount;
  }

  terminalEventsOf(commandId: string): ReceivedEvent[] {
    return this.#terminals.get(commandId) ?? [];
  }

  /** Resolves with the first terminal event of the command. */
  async waitForTerminalEvent(commandId: string, timeoutMs = 30_000): Promise<ReceivedEvent> {
    await this.waitUntil(() => this.terminalEventsOf(commandId).length > 0, timeoutMs, commandId);
    return this.terminalEventsOf(commandId)[0] as ReceivedEvent;
  }

  /** Resolves once every command has a terminal event. */
  async waitForTerminalEvents(commandIds: readonly string[], timeoutMs = 60_000): Promise<void> {
    const pending = new Set(commandIds);
    await this.waitUntil(
      () => {
        for (const id of pending) if (this.#terminals.has(id)) pending.delete(id);
        return pending.size === 0;
      },
      timeoutMs,
      () => `${pending.size} commands without a terminal event`,
    );
  }

  waitUntil(condition: () => boolean, timeoutMs: number, what: string | (() => string)) {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        const description = typeof what === 'string' ? what : what();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(check);
      };
      this.#listeners.add(check);
      check();
    });
  }

  stop(): Promise<void> {
    return this.#consumer.disconnect();
  }

  #addEvent(
    partition: number,
    message: { offset: string; key: Buffer | null; value: Buffer | null; headers?: IHeaders },
  ) {
    const sentinel = message.headers?.[SENTINEL_HEADER];
    if (sentinel !== undefined) {
      const id = String(sentinel);
      this.sentinels.set(id, (this.sentinels.get(id) ?? new Set()).add(partition));
      return;
    }
    const event = decodeEvent({ headers: message.headers ?? {}, value: message.value });
    if (!event) throw new Error(`not a CloudEvent at events/${partition}@${message.offset}`);
    const data = event.data as ReceivedEvent['data'];
    const terminal = data.commandType !== undefined && isTerminal(event.type, data.commandType);
    const key = message.key?.toString();
    const received = { partition, offset: message.offset, key, event, data, terminal };
    this.events.push(received);
    if (terminal && event.correlationId !== undefined) {
      const ofCommand = this.#terminals.get(event.correlationId) ?? [];
      this.#terminals.set(event.correlationId, [...ofCommand, received]);
      this.#terminalCount++;
    }
  }

  #addDeadLetter(message: { key: Buffer | null; value: Buffer | null; headers?: IHeaders }) {
    const headers = Object.fromEntries(
      Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
    );
    this.deadLetters.push({ key: message.key?.toString(), value: message.value, headers });
  }
}
