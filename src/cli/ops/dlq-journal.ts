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
