/**
 * The consumer lag of every command partition this instance owns, for the observer: the
 * high-water mark less the group's committed offset, and less the next offset in hand. Kafka is
 * asked every LAG_INTERVAL_MS and at each change of assignment, one question at a time; nothing
 * is asked when no observer wants the figures.
 */
import type { Logger } from 'pino';
import type { GroupConsumer } from '../kafka/index.js';
import type { Partitions } from '../partitions/index.js';
import type { BridgeObserver, PartitionLag } from './settings.js';

/** Often enough for a scrape every 15 s or more; one offset request per topic each time. */
export const LAG_INTERVAL_MS = 5_000;

export interface LagReportOptions {
  readonly consumer: Pick<GroupConsumer, 'positions'>;
  /** The partition numbers this instance owns now, and what it has in hand of each. */
  readonly partitions: Pick<Partitions, 'assigned' | 'nextInHand'>;
  readonly commandTopics: readonly string[];
  readonly observer: BridgeObserver;
  readonly log: Logger;
}

export class LagReport {
  readonly #options: LagReportOptions;
  #timer: NodeJS.Timeout | undefined;
  #asking = false;
  #askAgain = false;
  #stopped = false;

  constructor(options: LagReportOptions) {
    this.#options = options;
  }

  start(): void {
    if (!this.#options.observer.partitionLags || this.#stopped) return;
    this.#timer = setInterval(() => this.report(), LAG_INTERVAL_MS);
    this.#timer.unref();
    this.report();
  }

  /** Asks now, or once the question in progress is answered. */
  report(): void {
    if (!this.#timer) return;
    if (this.#asking) {
      this.#askAgain = true;
      return;
    }
    this.#asking = true;
    this.#lags()
      .then(
        (lags) => {
          if (!this.#stopped) this.#options.observer.partitionLags?.(lags);
        },
        (error: unknown) => this.#options.log.debug({ err: error }, 'consumer lag not read'),
      )
      .finally(() => {
        this.#asking = false;
        if (this.#askAgain) {
          this.#askAgain = false;
          this.report();
        }
      });
  }

  /** Owns nothing any more: every partition's figures go. */
  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#options.observer.partitionLags?.([]);
  }

  async #lags(): Promise<PartitionLag[]> {
    const { consumer, partitions, commandTopics } = this.#options;
    const owned = new Set(partitions.assigned);
    if (owned.size === 0) return [];
    const positions = await consumer.positions(commandTopics);
    return positions
      .filter(({ partition }) => owned.has(partition))
      .map(({ topic, partition, logStart, highWatermark, committed }) => {
        // Without a commit the group starts at the first record kept.
        const from = BigInt(committed ?? logStart);
        const inHand = partitions.nextInHand(topic, partition) ?? from;
        return {
          topic,
          partition,
          highWatermark: BigInt(highWatermark),
          committed: from,
          nextInHand: inHand > from ? inHand : from,
        };
      });
  }
}
