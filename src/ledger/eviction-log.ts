/**
 * The log line of the ledger's memory bound (entry-store.ts): at most one a minute, with what
 * left meanwhile, so a partition that evicts on every restore or write does not flood the log.
 * What left within the minute after a line is written when the minute is over, so that every
 * shrink of a partition's window is logged within a minute even if no eviction follows. The
 * minute is the monotonic clock's (performance.now()): a step of the wall clock neither holds a
 * line back nor lets two through.
 */
import type { Logger } from 'pino';
import type { Eviction } from './entry-store.js';

const INTERVAL_MS = 60_000;

export class EvictionLog {
  readonly #log: Pick<Logger, 'warn'>;
  readonly #intervalMs: number;
  #lastMs = Number.NEGATIVE_INFINITY;
  // Since the last line: entries evicted, and per partition the newest write time that left.
  #count = 0;
  readonly #upTo = new Map<number, number>();
  #flush: NodeJS.Timeout | undefined;

  constructor(log: Pick<Logger, 'warn'>, intervalMs = INTERVAL_MS) {
    this.#log = log;
    this.#intervalMs = intervalMs;
  }

  evicted(partition: number, eviction: Eviction): void {
    this.#count += eviction.count;
    this.#upTo.set(partition, Math.max(this.#upTo.get(partition) ?? 0, eviction.upToMs));
    const waitMs = this.#lastMs + this.#intervalMs - performance.now();
    if (waitMs <= 0) this.#write();
    else this.#flush ??= setTimeout(() => this.#write(), waitMs).unref();
  }

  /** At shutdown: what left since the last line is written now, and no timer is left. */
  stop(): void {
    if (this.#count > 0) this.#write();
  }

  #write(): void {
    clearTimeout(this.#flush);
    this.#flush = undefined;
    this.#lastMs = performance.now();
    const partitions = Object.fromEntries(
      [...this.#upTo].map(([p, upTo]) => [p, new Date(upTo).toISOString()]),
    );
    this.#log.warn(
      { evicted: this.#count, evictedUpTo: partitions },
      'ledger memory bound (LEDGER_MEMORY_BYTES) reached: the oldest ended entries left memory, so these partitions vouch for less than LEDGER_REPLAY_WINDOW and refuse older records as expired; raise the heap or LEDGER_MEMORY_BYTES, or shorten the window',
    );
    this.#count = 0;
    this.#upTo.clear();
  }
}
