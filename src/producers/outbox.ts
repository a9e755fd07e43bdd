/**
 * Batches the records of many commands (events, ledger entries, dead letters) into one send per
 * flush. A flush starts `lingerMs` after the first record arrives, or at once when `maxRecords`
 * are waiting; while one is in flight the next batch gathers and goes as soon as it returns, so
 * under load batches grow instead of requests queueing. One send at a time also keeps each
 * partition's records in write order.
 *
 * The records given to one write() always travel in the same send: a command's terminal event
 * and its ledger mark are in one produce request per broker, written together or not at all if
 * the process dies.
 */
import type { OutboundRecord } from '../kafka/index.js';

export type OutboxSink = (records: readonly OutboundRecord[]) => Promise<void>;

export interface OutboxOptions {
  readonly sink: OutboxSink;
  readonly lingerMs: number;
  readonly maxRecords: number;
}

interface PendingWrite {
  readonly records: readonly OutboundRecord[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class Outbox {
  readonly #options: OutboxOptions;
  #pending: PendingWrite[] = [];
  #pendingRecords = 0;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;

  constructor(options: OutboxOptions) {
    this.#options = options;
  }

  /** Resolves once the records are acknowledged; rejects with the send's error. */
  write(records: readonly OutboundRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const written = new Promise<void>((resolve, reject) => {
      this.#pending.push({ records, resolve, reject });
    });
    this.#pendingRecords += records.length;
    if (this.#inFlight) return written;
    if (this.#pendingRecords >= this.#options.maxRecords) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), this.#options.lingerMs);
    return written;
  }

  /** Resolves once everything written so far was sent (successfully or not). */
  async drain(): Promise<void> {
    while (this.#inFlight || this.#pending.length > 0) {
      if (!this.#inFlight) this.#flush();
      await this.#inFlight;
    }
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const writes = this.#takeBatch();
    if (writes.length === 0) return;
    this.#inFlight = this.#options
      .sink(writes.flatMap((write) => write.records))
      .then(
        () => {
          for (const write of writes) write.resolve();
        },
        (error: unknown) => {
          for (const write of writes) write.reject(error);
        },
      )
      .finally(() => {
        this.#inFlight = undefined;
        // Records that gathered meanwhile have waited long enough.
        if (this.#pending.length > 0) this.#flush();
      });
  }

  /** Whole writes, up to maxRecords records (or one larger write): a request has a size limit. */
  #takeBatch(): PendingWrite[] {
    let count = 0;
    let taken = 0;
    for (const write of this.#pending) {
      if (taken > 0 && count + write.records.length > this.#options.maxRecords) break;
      count += write.records.length;
      taken++;
    }
    this.#pendingRecords -= count;
    return this.#pending.splice(0, taken);
  }
}
