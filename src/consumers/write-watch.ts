/**
 * Whether the bridge can write to Kafka, as its outbox finds out: writes fail from a send that
 * failed for a reason that may pass until the outbox stops sending it again (acknowledged,
 * refused for good, or given up). A failure that lasts `graceMs` holds the readiness cause
 * `kafka-writes`, naming the last error, logged once at error; the end of it releases the cause,
 * logged once at info. A shorter one (a transaction coordinator moved: the producer is replaced
 * and the same writes go through a moment later) shows only as a warn line per failed send.
 */
import type { Logger } from 'pino';
import type { Readiness } from './readiness.js';

export const KAFKA_WRITES = 'kafka-writes';

/** What /readyz says of an error: its message, bounded (kafkajs' can quote a whole request). */
const DETAIL_CHARS = 300;

export interface WriteWatchOptions {
  readonly readiness: Readiness;
  readonly log: Logger;
  /** How long sends may fail before the bridge says it is not ready. */
  readonly graceMs: number;
  /** Told when the cause is held (true) and released (false). */
  readonly onChange?: (failing: boolean) => void;
}

export class WriteWatch {
  readonly #options: WriteWatchOptions;
  // On the monotonic clock: when the sends began failing; undefined while they do not.
  #since: number | undefined;
  #last: unknown;
  #timer: NodeJS.Timeout | undefined;
  #held = false;

  constructor(options: WriteWatchOptions) {
    this.#options = options;
  }

  /** A send failed for a reason that may pass; the outbox sends it again after `delayMs`. */
  failed(error: unknown, attempt: number, delayMs: number): void {
    const { log, readiness, graceMs } = this.#options;
    log.warn({ err: error, attempt, delayMs }, 'writing to Kafka failed; sending again');
    this.#last = error;
    if (this.#held) readiness.hold(KAFKA_WRITES, detail(error));
    if (this.#since !== undefined) return;
    this.#since = performance.now();
    this.#timer = setTimeout(() => this.#hold(), graceMs);
    this.#timer.unref();
  }

  /**
   * The send that failed is not sent again: `answered` when Kafka acknowledged or refused it,
   * not when it was given up (its partitions no longer this instance's, or the bridge stopping).
   */
  ended(answered: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const failedForMs = Math.round(performance.now() - (this.#since ?? performance.now()));
    this.#since = undefined;
    if (!this.#held) return;
    this.#held = false;
    this.#options.readiness.release(KAFKA_WRITES);
    this.#options.onChange?.(false);
    this.#options.log.info(
      { failedForMs },
      answered
        ? 'writing to Kafka works again'
        : 'the writes Kafka did not take were given up (their partitions left this instance, or it stops)',
    );
  }

  #hold(): void {
    this.#timer = undefined;
    this.#held = true;
    const { readiness, log, onChange } = this.#options;
    readiness.hold(KAFKA_WRITES, detail(this.#last));
    onChange?.(true);
    const failingForMs = Math.round(performance.now() - (this.#since ?? performance.now()));
    log.error(
      { err: this.#last, failingForMs },
      'writing to Kafka fails: not ready until a write goes through (the outbox sends it again)',
    );
  }
}

function detail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > DETAIL_CHARS ? `${message.slice(0, DETAIL_CHARS)}…` : message;
}
