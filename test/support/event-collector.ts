import type { EventUndecodable } from '../../src/errors.js';
import { headerText } from '../../src/kafka/index.js';
import type { CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import { type BridgeEvent, type DeadLetter, EventSubscriber } from '../../src/sdk/index.js';

export interface ReceivedEvent {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | undefined;
  readonly event: BridgeEvent;
  /** The event's data, as published. */
  readonly data: Record<string, unknown> & { commandId?: string; commandType?: CommandType };
  readonly terminal: boolean;
}

export interface CollectedDeadLetter {
  readonly key: string | undefined;
  readonly value: Buffer | null;
  readonly headers: Record<string, string>;
}

/**
 * Reads the events and dead-letter topics from the beginning through the SDK's subscriber, as a
 * read_committed subscriber, keeping everything (a test's worth).
 */
export class EventCollector {
  readonly events: ReceivedEvent[] = [];
  /** The offset after the last record read, per partition of the events topic. */
  readonly positions = new Map<number, bigint>();
  /** `partition@offset` of records with no event in them: only sentinels (untilSettled) may be. */
  readonly notEvents: string[] = [];
  readonly deadLetters: CollectedDeadLetter[] = [];
  readonly #terminals = new Map<string, ReceivedEvent[]>();
  #subscriber: EventSubscriber | undefined;
  #terminalCount = 0;
  #listeners = new Set<() => void>();

  static async start(brokers: string[], topics: TopicNames): Promise<EventCollector> {
    const collector = new EventCollector();
    collector.#subscriber = await EventSubscriber.start(
      { brokers, clientId: 'harness' },
      {
        topics,
        from: 'beginning',
        onEvent: (event) => collector.#addEvent(event),
        onDeadLetter: (letter) => collector.#addDeadLetter(letter),
        onUndecodable: (error) => collector.#addUndecodable(error),
      },
    );
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

  async stop(): Promise<void> {
    await this.#subscriber?.stop();
  }

  /** A record with no CloudEvent headers: untilSettled checks it is a sentinel it wrote. */
  #addUndecodable(error: EventUndecodable): void {
    const { partition, offset, reason } = error.details;
    if (reason !== 'not-cloudevent') throw error;
    this.notEvents.push(`${partition}@${offset}`);
    this.positions.set(partition, BigInt(offset) + 1n);
    this.#notify();
  }

  #addEvent(event: BridgeEvent): void {
    const { partition, offset, key } = event.record;
    this.positions.set(partition, BigInt(offset) + 1n);
    const data = event.data as ReceivedEvent['data'];
    const received = { partition, offset, key, event, data, terminal: event.terminal };
    this.events.push(received);
    if (event.terminal && event.commandId !== undefined) {
      const ofCommand = this.#terminals.get(event.commandId) ?? [];
      this.#terminals.set(event.commandId, [...ofCommand, received]);
      this.#terminalCount++;
    }
    this.#notify();
  }

  #addDeadLetter(letter: DeadLetter): void {
    const { key, value } = letter.original;
    const headers = Object.fromEntries(
      Object.keys(letter.headers).map((name) => [name, headerText(letter.headers, name) ?? '']),
    );
    this.deadLetters.push({ key: key?.toString(), value, headers });
    this.#notify();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }
}
