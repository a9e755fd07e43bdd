import type { Logger } from 'pino';
import type { GroupConsumer } from '../kafka/index.js';
import type { OffsetTracker, TopicPartitionOffset } from './offset-tracker.js';

/**
 * Commits, per partition, up to the lowest unfinished offset, one commit at a time. A failed
 * commit (a rebalance in progress, say) is only logged: the next one covers it, and a command
 * run again after a lost commit is skipped by the ledger.
 */
export interface OffsetCommitterOptions {
  readonly tracker: OffsetTracker;
  readonly consumer: Pick<GroupConsumer, 'commit'>;
  readonly commandTopics: readonly string[];
  /** Told what was committed, once it was. */
  readonly onCommitted?: (offsets: readonly TopicPartitionOffset[]) => void;
  readonly log: Logger;
}

export class OffsetCommitter {
  readonly #options: OffsetCommitterOptions;
  #last: Promise<void> = Promise.resolve();

  constructor(options: OffsetCommitterOptions) {
    this.#options = options;
  }

  /** Commits every partition, or just one. */
  commit(partition?: number): Promise<void> {
    this.#last = this.#last.then(() => this.#commitNow(partition));
    return this.#last;
  }

  /** Commits the partition and forgets its offsets: it is being handed over. */
  async commitAndForget(partition: number): Promise<void> {
    await this.commit(partition);
    for (const topic of this.#options.commandTopics) this.#options.tracker.forget(topic, partition);
  }

  async #commitNow(partition: number | undefined): Promise<void> {
    const offsets = this.#options.tracker
      .committableOffsets()
      .filter((o: TopicPartitionOffset) => partition === undefined || o.partition === partition);
    if (offsets.length === 0) return;
    try {
      await this.#options.consumer.commit(offsets);
      this.#options.tracker.markCommitted(offsets);
      this.#options.onCommitted?.(offsets);
    } catch (error) {
      this.#options.log.warn(
        { err: error, partitions: offsets.length },
        'committing offsets failed',
      );
    }
  }
}
