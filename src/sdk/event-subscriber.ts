/**
 * Follows the bridge's events topic (and, when asked, its dead-letter topic) as a read_committed
 * consumer, hands each decoded event to the application, and tells when a command ended.
 */
import { EventUndecodable, SubscriberUnavailable } from '../errors.js';
import type { InboundRecord, ReadStart, TopicReader } from '../kafka/index.js';
import { type TopicNames, topicNames } from '../schemas/messages/index.js';
import { type DeadLetter, decodeDeadLetter } from './dead-letters.js';
import { type BridgeEvent, decodeEvent } from './events.js';
import { type KafkaTarget, kafkaToolsFor } from './kafka-target.js';
import { OutcomeBook, type OutcomeOf, type WaitOptions } from './outcomes.js';

type Handler<T> = (value: T) => void | Promise<void>;

export interface EventSubscriberOptions {
  /** The bridge's topics; default `topicNames()` (prefix `signing-bridge.`). */
  readonly topics?: TopicNames;
  /**
   * Read in this consumer group: after a restart it goes on where it stopped, and instances
   * sharing it share the partitions. What a handler returned from is committed. Without one,
   * the subscriber reads alone and commits nothing.
   */
  readonly groupId?: string;
  /**
   * Where reading starts; default 'end' (what is published from start() on). In a group, this
   * is where each partition starts the first time the group starts.
   */
  readonly from?: 'beginning' | 'end' | Date;
  /** Each event, in order within its bizId; the next waits for the promise it returns. */
  readonly onEvent?: Handler<BridgeEvent>;
  /** Each dead letter; without it the dead-letter topic is not read. */
  readonly onDeadLetter?: Handler<DeadLetter>;
  /** A record on the events topic that is not an event this SDK knows; default: skipped. */
  readonly onUndecodable?: Handler<EventUndecodable>;
}

export class EventSubscriber {
  /** Settles once stopped; rejects when the consumer failed for good. */
  readonly done: Promise<void>;
  readonly #reader: TopicReader;
  readonly #outcomes = new OutcomeBook();

  private constructor(reader: TopicReader) {
    this.#reader = reader;
    this.done = reader.done;
    reader.done.then(
      () => this.#close('stopped'),
      (error: unknown) => this.#close('failed', error),
    );
  }

  /** Resolves once reading started: from then on, every event published is seen. */
  static async start(
    target: KafkaTarget,
    options: EventSubscriberOptions = {},
  ): Promise<EventSubscriber> {
    const topics = options.topics ?? topicNames();
    const from = options.from ?? 'end';
    const start: ReadStart = from instanceof Date ? { timestamp: from.getTime() } : from;
    const reader = kafkaToolsFor(target).reader({
      topics: options.onDeadLetter ? [topics.events, topics.deadLetter] : [topics.events],
      start,
      groupId: options.groupId,
    });
    const subscriber = new EventSubscriber(reader);
    await reader.start((records) => subscriber.#take(records, topics, options));
    return subscriber;
  }

  /**
   * The command's terminal event: already seen (among the last 10,000 commands) or the next to
   * come. A command is its bizId and commandId (a commandId is unique within its bizId only);
   * given the record's position and fingerprint too (pass what `CommandProducer.send` returned),
   * the wait is for the ending of that send: the same command sent again after an ending that
   * was not final ends again, a final ending answers every later send of the same content, and
   * a send of other content is answered by its own command.rejected (SB_ERR_COMMAND_ID_REUSED).
   * @throws OutcomeWaitTimedOut after `timeoutMs` (default 60 s)
   * @throws SubscriberUnavailable once stopped, or beyond 10,000 waits at once
   */
  waitForOutcome(command: OutcomeOf, options?: WaitOptions): Promise<BridgeEvent> {
    return this.#outcomes.wait(command, options);
  }

  stop(): Promise<void> {
    return this.#reader.stop();
  }

  async #take(
    records: readonly InboundRecord[],
    topics: TopicNames,
    options: EventSubscriberOptions,
  ) {
    for (const record of records) {
      if (record.topic === topics.deadLetter) {
        const letter = decodeDeadLetter(record);
        if (letter.kind === 'dead-letter') await options.onDeadLetter?.(letter);
        continue;
      }
      let event: BridgeEvent;
      try {
        event = decodeEvent(record);
      } catch (error) {
        if (!(error instanceof EventUndecodable)) throw error;
        await options.onUndecodable?.(error);
        continue;
      }
      await options.onEvent?.(event);
      this.#outcomes.add(event);
    }
  }

  #close(reason: 'stopped' | 'failed', cause?: unknown): void {
    const message =
      reason === 'stopped'
        ? 'the event subscriber was stopped'
        : 'the event subscriber failed: its Kafka consumer stopped for good';
    this.#outcomes.close(new SubscriberUnavailable(message, { details: { reason }, cause }));
  }
}
