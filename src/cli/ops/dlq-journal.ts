/**
 * The dead-letter topic read as a journal: dead letters, and the markers `dlq replay` writes once
 * it sent one back to its source topic (in the same transaction). A dead letter with a marker
 * after it is replayed; replay sends only those without.
 */
import type { InboundRecord } from '../../kafka/index.js';
import { type DeadLetter, decodeDeadLetter } from '../../sdk/index.js';

/** What one run holds: the dead letters after these are counted, and left to the next run. */
export const DLQ_LIMITS = { letters: 1_000, bytes: 64 * 1024 * 1024 } as const;

export interface JournalEntry {
  readonly letter: DeadLetter;
  replayed: boolean;
}

export class DlqJournal {
  /** Dead letters that matched but were not held: past the limits. */
  beyond = 0;
  readonly #entries = new Map<string, JournalEntry>();
  readonly #commandId: string | undefined;
  readonly #limits: { readonly letters: number; readonly bytes: number };
  #bytes = 0;

  constructor(commandId?: string, limits: { letters: number; bytes: number } = DLQ_LIMITS) {
    this.#commandId = commandId;
    this.#limits = limits;
  }

  add(record: InboundRecord): void {
    const read = decodeDeadLetter(record);
    if (read.kind === 'replay-marker') {
      const { partition, offset } = read.replayOf;
      const entry = this.#entries.get(`${partition}/${offset}`);
      if (entry) entry.replayed = true;
      return;
    }
    if (this.#commandId !== undefined && read.commandId !== this.#commandId) return;
    const bytes = (read.original.value?.length ?? 0) + (read.original.key?.length ?? 0);
    const full =
      this.#entries.size >= this.#limits.letters || this.#bytes + bytes > this.#limits.bytes;
    if (full) {
      this.beyond++;
      return;
    }
    this.#bytes += bytes;
    this.#entries.set(`${record.partition}/${record.offset}`, { letter: read, replayed: false });
  }

  /** In the order read (each partition's in offset order). */
  entries(): JournalEntry[] {
    return [...this.#entries.values()];
  }
}

/** A dead letter that names its source topic, so it can be sent back there. */
export type Sendable = DeadLetter & { source: { topic: string } };

export interface Refused {
  readonly entry: JournalEntry;
  readonly reason: string;
}

/**
 * Of the entries, those not yet replayed that can be sent back as they came; and the others,
 * with why: a copy the bridge cut to fit, or one naming a topic that is not a command topic here.
 */
export function sortOut(
  entries: readonly JournalEntry[],
  commandTopics: ReadonlySet<string>,
): { replayable: JournalEntry[]; refused: Refused[] } {
  const replayable: JournalEntry[] = [];
  const refused: Refused[] = [];
  for (const entry of entries.filter((e) => !e.replayed)) {
    const { truncated, source } = entry.letter;
    if (truncated.length > 0) {
      const reason = `cut to fit the dead-letter topic (${truncated.join(', ')}): replay it from ${source.topic} ${source.partition}@${source.offset}`;
      refused.push({ entry, reason });
    } else if (!commandTopics.has(source.topic ?? '')) {
      refused.push({
        entry,
        reason: `${source.topic ?? 'no source topic'} is not a command topic of this bridge`,
      });
    } else {
      replayable.push(entry);
    }
  }
  return { replayable, refused };
}
