/**
 * The records of one bizId gathered from the command topics, the events topic and the
 * dead-letter topic, in the order they were written, and what each command ended with.
 */
import type { InboundRecord } from '../../kafka/index.js';
import type { CommandType, TopicNames } from '../../schemas/messages/index.js';
import { commandIdOf } from '../../sdk/dead-letters.js';
import {
  type BridgeEvent,
  type DeadLetter,
  decodeDeadLetter,
  decodeEvent,
  type ReplayMarker,
} from '../../sdk/index.js';

/** The records of one bizId kept; the ones after are counted, not kept. */
export const HISTORY_MAX_RECORDS = 10_000;

interface At {
  /** The record's timestamp, ms since the epoch. */
  readonly at: number;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

export type HistoryEntry = At &
  (
    | {
        readonly kind: 'command';
        readonly type: CommandType;
        readonly commandId: string | undefined;
      }
    | { readonly kind: 'event'; readonly event: BridgeEvent }
    | { readonly kind: 'unreadable-event'; readonly problem: string }
    | { readonly kind: 'dead-letter'; readonly letter: DeadLetter }
    | { readonly kind: 'replay'; readonly marker: ReplayMarker }
  );

export interface Outcome {
  readonly commandId: string;
  readonly commandType: CommandType | undefined;
  /** Its first terminal event; undefined while it has none. */
  readonly ended: BridgeEvent | undefined;
}

export class HistoryBook {
  /** Records of the bizId seen but not kept, past the limit. */
  dropped = 0;
  readonly #bizId: string;
  readonly #typeOfTopic: ReadonlyMap<string, CommandType>;
  readonly #topics: TopicNames;
  readonly #limit: number;
  readonly #entries: HistoryEntry[] = [];

  constructor(bizId: string, topics: TopicNames, limit = HISTORY_MAX_RECORDS) {
    this.#bizId = bizId;
    this.#topics = topics;
    this.#limit = limit;
    this.#typeOfTopic = new Map(
      Object.entries(topics.commands).map(([type, topic]) => [topic, type as CommandType]),
    );
  }

  add(record: InboundRecord): void {
    if (record.key?.toString() !== this.#bizId) return;
    if (this.#entries.length >= this.#limit) {
      this.dropped++;
      return;
    }
    const at: At = {
      at: Number(record.timestamp),
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
    };
    this.#entries.push({ ...at, ...this.#classify(record) });
  }

  /** In the order written (by timestamp; one partition's records keep their offset order). */
  entries(): HistoryEntry[] {
    return [...this.#entries].sort((a, b) => a.at - b.at);
  }

  /** Every command met, in the order first met, with its first terminal event. */
  outcomes(): Outcome[] {
    const outcomes = new Map<string, { commandType?: CommandType; ended?: BridgeEvent }>();
    for (const entry of this.entries()) {
      const commandId = entry.kind === 'command' ? entry.commandId : entryCommandId(entry);
      if (commandId === undefined) continue;
      const outcome = outcomes.get(commandId) ?? {};
      outcomes.set(commandId, outcome);
      if (entry.kind === 'command') outcome.commandType ??= entry.type;
      if (entry.kind === 'event') {
        outcome.commandType ??= entry.event.data.commandType;
        if (entry.event.terminal) outcome.ended ??= entry.event;
      }
    }
    return [...outcomes].map(([commandId, { commandType, ended }]) => ({
      commandId,
      commandType,
      ended,
    }));
  }

  #classify(record: InboundRecord) {
    const type = this.#typeOfTopic.get(record.topic);
    if (type !== undefined) {
      return { kind: 'command' as const, type, commandId: commandIdOf(record.value) };
    }
    if (record.topic === this.#topics.deadLetter) {
      const letter = decodeDeadLetter(record);
      return letter.kind === 'dead-letter'
        ? { kind: 'dead-letter' as const, letter }
        : { kind: 'replay' as const, marker: letter };
    }
    try {
      return { kind: 'event' as const, event: decodeEvent(record) };
    } catch (error) {
      return { kind: 'unreadable-event' as const, problem: (error as Error).message };
    }
  }
}

function entryCommandId(entry: HistoryEntry): string | undefined {
  if (entry.kind === 'event') return entry.event.commandId;
  return entry.kind === 'dead-letter' ? entry.letter.commandId : undefined;
}
