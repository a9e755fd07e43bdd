/**
 * Whether the bridge can write to Kafka, as its outbox finds out: writes fail from a send that
 * failed for a reason that may pass until the outbox stops sending it again (acknowledged,
 * refused for good, or given up). A failure that lasts `graceMs` holds the readiness cause
 * `kafka-writes`, naming the last error, logged once at error; the end of it releases the cause,
 * logged once at info. A shorter one (a transaction coordinator moved: the producer is replaced
 * and the same writes go through a moment later) shows only as a warn line per failed send.
 *
 * Kafka's error does not say which partition holds the writes back. Once the cause is held, the
 * cluster's metadata is asked about the partitions of the send that keeps failing, then every
 * 30 s while it does (kafka/partition-health.ts): a partition without a leader, with fewer
 * replicas in sync than its min.insync.replicas, with a replica whose disk failed, a topic
 * deleted. What is found is added to the cause's detail, logged at error when it changes, and
 * reported (signing_bridge_kafka_write_stalled). Every write waits behind the stalled ones: the
 * outbox keeps the order of writes (docs/design.md, "When Kafka refuses a write").
 */
import type { Logger } from 'pino';
import type { OutboundRecord, PartitionStall, StallProblem } from '../kafka/index.js';
import type { Readiness } from './readiness.js';

export const KAFKA_WRITES = 'kafka-writes';

/** What /readyz says of an error: its message, bounded (kafkajs' can quote a whole request). */
const DETAIL_CHARS = 300;
/** The stalls /readyz names; the log line has them all. */
const DETAIL_STALLS = 3;
/** How often the partitions are looked at again while writes stall. */
const DIAGNOSIS_INTERVAL_MS = 30_000;

/** What the metric says of a stall: where, and what; `unexplained` when the cluster looks well. */
export interface WriteStall {
  readonly topic: string;
  /** The partition; `all` for the whole topic, `unknown` for an unexplained stall. */
  readonly partition: string;
  readonly problem: StallProblem | 'unexplained';
}

const UNEXPLAINED: readonly WriteStall[] = [
  { topic: 'unknown', partition: 'unknown', problem: 'unexplained' },
];

export interface WriteWatchOptions {
  readonly readiness: Readiness;
  readonly log: Logger;
  /** How long sends may fail before the bridge says it is not ready. */
  readonly graceMs: number;
  /** Told when the cause is held (true) and released (false). */
  readonly onChange?: (failing: boolean) => void;
  /** The stalls among the partitions the records go to (kafka/partition-health.ts). */
  readonly diagnose: (records: readonly OutboundRecord[]) => Promise<readonly PartitionStall[]>;
  /** Told, while the cause is held, where writes stall; [] once released. */
  readonly onStalls?: (stalls: readonly WriteStall[]) => void;
  /** Told the error code of every failed send (writeFailed's kafkaError, or the error's name). */
  readonly onFailure?: (kafkaError: string) => void;
}

export class WriteWatch {
  readonly #options: WriteWatchOptions;
  // On the monotonic clock: when the sends began failing; undefined while they do not.
  #since: number | undefined;
  #last: unknown;
  #timer: NodeJS.Timeout | undefined;
  #held = false;
  // The records of the send that failed last: the partitions to look at.
  #records: readonly OutboundRecord[] = [];
  #stalls: readonly PartitionStall[] = [];
  #diagnosis: NodeJS.Timeout | undefined;
  // Counts holds: a diagnosis that returns after its hold ended is dropped.
  #holds = 0;

  constructor(options: WriteWatchOptions) {
    this.#options = options;
  }

  /** A send failed for a reason that may pass; the outbox sends it again after `delayMs`. */
  failed(
    error: unknown,
    attempt: number,
    delayMs: number,
    records: readonly OutboundRecord[] = [],
  ): void {
    const { log, readiness, graceMs, onFailure } = this.#options;
    log.warn({ err: error, attempt, delayMs }, 'writing to Kafka failed; sending again');
    onFailure?.(codeOf(error));
    this.#last = error;
    this.#records = records;
    if (this.#held) readiness.hold(KAFKA_WRITES, this.#detail());
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
    this.#records = [];
    if (!this.#held) return;
    this.#held = false;
    clearTimeout(this.#diagnosis);
    this.#diagnosis = undefined;
    this.#stalls = [];
    this.#options.readiness.release(KAFKA_WRITES);
    this.#options.onChange?.(false);
    this.#options.onStalls?.([]);
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
    this.#holds += 1;
    const { readiness, log, onChange, onStalls } = this.#options;
    readiness.hold(KAFKA_WRITES, this.#detail());
    onChange?.(true);
    onStalls?.(UNEXPLAINED);
    const failingForMs = Math.round(performance.now() - (this.#since ?? performance.now()));
    log.error(
      { err: this.#last, failingForMs },
      'writing to Kafka fails: not ready until a write goes through (the outbox sends it again)',
    );
    void this.#diagnose(this.#holds);
  }

  /** Looks at the partitions written to, then again every DIAGNOSIS_INTERVAL_MS while held. */
  async #diagnose(hold: number): Promise<void> {
    const { diagnose, readiness, log, onStalls } = this.#options;
    let stalls: readonly PartitionStall[] | undefined;
    try {
      stalls = await diagnose(this.#records);
    } catch (error) {
      log.warn({ err: error }, 'the partitions written to could not be looked at');
    }
    if (!this.#held || hold !== this.#holds) return;
    if (stalls !== undefined && !sameStalls(stalls, this.#stalls)) {
      this.#stalls = stalls;
      readiness.hold(KAFKA_WRITES, this.#detail());
      onStalls?.(stalls.length === 0 ? UNEXPLAINED : stalls.map(labelsOf));
      if (stalls.length > 0) {
        log.error(
          { stalls: stalls.map(({ detail }) => detail) },
          'writes to Kafka stall on these partitions; every later write waits behind them',
        );
      }
    }
    this.#diagnosis = setTimeout(() => void this.#diagnose(hold), DIAGNOSIS_INTERVAL_MS);
    this.#diagnosis.unref();
  }

  #detail(): string {
    const message = detail(this.#last);
    if (this.#stalls.length === 0) return message;
    const named = this.#stalls.slice(0, DETAIL_STALLS).map((stall) => stall.detail);
    const more = this.#stalls.length - named.length;
    return [message, ...named, ...(more > 0 ? [`${more} more (the log names them)`] : [])].join(
      '; ',
    );
  }
}

function labelsOf({ topic, partition, problem }: PartitionStall): WriteStall {
  return { topic, partition: partition === undefined ? 'all' : String(partition), problem };
}

function sameStalls(a: readonly PartitionStall[], b: readonly PartitionStall[]): boolean {
  const key = (stalls: readonly PartitionStall[]) => stalls.map((s) => s.detail).join('\n');
  return key(a) === key(b);
}

function codeOf(error: unknown): string {
  const { details, name } = error as { details?: { kafkaError?: unknown }; name?: unknown };
  const code = details?.kafkaError ?? name;
  return typeof code === 'string' ? code : 'Error';
}

function detail(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > DETAIL_CHARS ? `${message.slice(0, DETAIL_CHARS)}…` : message;
}
