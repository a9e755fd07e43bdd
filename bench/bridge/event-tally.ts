/**
 * Reads a run's events topic from the beginning and keeps, per phase, when each command's first
 * terminal event was written (the event record's timestamp) and how long after its command was
 * produced; and how many terminal events of each type arrived, repeats counted apart.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { GroupConsumer, InboundRecord, KafkaConnection } from '../../src/kafka/index.js';
import { headerText } from '../../src/producers/index.js';
import { EVENTS, type EventType, isTerminal } from '../../src/schemas/messages/index.js';
import type { SentCommand } from './kafka-io.js';

export interface PhaseTally {
  /** Terminal events' record timestamps (ms), in arrival order. */
  readonly eventTimes: number[];
  /** Event time minus produce time, per command. */
  readonly latenciesMs: number[];
}

export class EventTally {
  /** Terminal events by type, first ones only. */
  readonly outcomes = new Map<string, number>();
  /** Terminal events of a command that already had one. */
  repeats = 0;
  readonly #sent: ReadonlyMap<string, SentCommand>;
  readonly #ended = new Set<string>();
  readonly #phases = new Map<string, PhaseTally>();
  readonly #consumer: GroupConsumer;
  #lastArrival = Date.now();

  private constructor(consumer: GroupConsumer, sent: ReadonlyMap<string, SentCommand>) {
    this.#consumer = consumer;
    this.#sent = sent;
  }

  static async start(
    kafka: KafkaConnection,
    eventsTopic: string,
    sent: ReadonlyMap<string, SentCommand>,
  ): Promise<EventTally> {
    const id = randomUUID();
    const consumer = kafka.consumer({ groupId: `bench-events-${id}`, instanceId: id });
    const tally = new EventTally(consumer, sent);
    await consumer.run([eventsTopic], {
      onBatch: (batch) => {
        for (const record of batch.records) tally.#add(record);
        const last = batch.records.at(-1);
        if (last) batch.resolve(last.offset);
      },
      onAssignment: () => {},
      onCrash: (error, restarting) =>
        process.stderr.write(`[events] consumer crashed (restarting: ${restarting}): ${error}\n`),
    });
    return tally;
  }

  phase(name: string): PhaseTally {
    let phase = this.#phases.get(name);
    if (!phase) {
      phase = { eventTimes: [], latenciesMs: [] };
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

  stop(): Promise<void> {
    return this.#consumer.stop();
  }

  #add(record: InboundRecord): void {
    const type = headerText(record.headers, 'ce_type') as EventType | undefined;
    const commandId = headerText(record.headers, 'ce_correlationid');
    const sent = commandId === undefined ? undefined : this.#sent.get(commandId);
    if (type === undefined || !(type in EVENTS) || sent === undefined) return;
    if (!isTerminal(type, sent.type)) return;
    this.#lastArrival = Date.now();
    if (this.#ended.has(commandId as string)) {
      this.repeats += 1;
      return;
    }
    this.#ended.add(commandId as string);
    this.outcomes.set(type, (this.outcomes.get(type) ?? 0) + 1);
    const at = Number(record.timestamp);
    const phase = this.phase(sent.phase);
    phase.eventTimes.push(at);
    phase.latenciesMs.push(at - sent.producedAt);
  }
}
