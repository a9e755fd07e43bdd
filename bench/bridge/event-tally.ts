/**
 * Reads a run's events topic from the beginning with the SDK's subscriber and keeps, per phase, when each command's first
 * terminal event was written (the event record's timestamp), how long after its command was
 * produced, and how many of them were successes and failures; and how many terminal events of
 * each type arrived, repeats counted apart.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { EVENTS, type EventType, type TopicNames } from '../../src/schemas/messages/index.js';
import { type BridgeEvent, EventSubscriber } from '../../src/sdk/index.js';
import type { SentCommand } from './kafka-io.js';

export interface PhaseTally {
  /** Terminal events' record timestamps (ms), in arrival order. */
  readonly eventTimes: number[];
  /** Event time minus produce time, per command. */
  readonly latenciesMs: number[];
  /** Commands whose first terminal event is their type's success event. */
  succeeded: number;
  /** Commands whose first terminal event is a failure (command.rejected, .failed, ...). */
  failed: number;
}

/** A failure event ends a command of any type; a success event names the type it ends. */
export function isFailure(type: EventType): boolean {
  return EVENTS[type].terminal === true;
}

export class EventTally {
  /** Terminal events by type, first ones only. */
  readonly outcomes = new Map<string, number>();
  /** Terminal events of a command that already had one. */
  repeats = 0;
  readonly #sent: ReadonlyMap<string, SentCommand>;
  readonly #ended = new Set<string>();
  readonly #phases = new Map<string, PhaseTally>();
  #subscriber: EventSubscriber | undefined;
  #lastArrival = Date.now();

  private constructor(sent: ReadonlyMap<string, SentCommand>) {
    this.#sent = sent;
  }

  static async start(
    brokers: readonly string[],
    topics: TopicNames,
    sent: ReadonlyMap<string, SentCommand>,
  ): Promise<EventTally> {
    const tally = new EventTally(sent);
    tally.#subscriber = await EventSubscriber.start(
      { brokers: [...brokers], clientId: 'bench' },
      { topics, from: 'beginning', onEvent: (event) => tally.#add(event) },
    );
    tally.#subscriber.done.catch((error: unknown) =>
      process.stderr.write(`[events] the subscriber failed: ${error}\n`),
    );
    return tally;
  }

  phase(name: string): PhaseTally {
    let phase = this.#phases.get(name);
    if (!phase) {
      phase = { eventTimes: [], latenciesMs: [], succeeded: 0, failed: 0 };
      this.#phases.set(name, phase);
    }
    return phase;
  }

  /**
   * Resolves true once `count` commands of the phase have ended; false when no terminal event
   * arrived for `stallMs` (the subject is stuck or dead), or `alive()` turns false.
   */
  async waitFor(phase: string, count: number, stallMs: number, alive: () => boolean) {
    for (;;) {
      if (this.phase(phase).eventTimes.length >= count) return true;
      if (Date.now() - this.#lastArrival > stallMs || !alive()) return false;
      await delay(50);
    }
  }

  async stop(): Promise<void> {
    await this.#subscriber?.stop();
  }

  #add(event: BridgeEvent): void {
    const { commandId } = event;
    const sent = commandId === undefined ? undefined : this.#sent.get(commandId);
    if (sent === undefined || commandId === undefined || !event.terminal) return;
    this.#lastArrival = Date.now();
    if (this.#ended.has(commandId)) {
      this.repeats += 1;
      return;
    }
    this.#ended.add(commandId);
    this.outcomes.set(event.type, (this.outcomes.get(event.type) ?? 0) + 1);
    const at = Number(event.record.timestamp);
    const phase = this.phase(sent.phase);
    phase.eventTimes.push(at);
    phase.latenciesMs.push(at - sent.producedAt);
    if (isFailure(event.type)) phase.failed += 1;
    else phase.succeeded += 1;
  }
}
