import type { Logger } from 'pino';
import type { GroupConsumer } from '../kafka/index.js';
import type { OffsetTracker, TopicPartitionOffset } from './offset-tracker.js';

/**
 * Commits, per partition, up to the lowest unfinished offset, one commit at a time. A failed
 * commit (a rebalance in progress, say) is only logged: the next one covers it, and a command
 * run again after a lost commit is skipped by the ledger.
 */
export class OffsetCommitter {
  readonly #tracker: OffsetTracker;
  readonly #consumer: Pick<GroupConsumer, 'commit'>;
  readonly #commandTopics: readonly string[];
  readonly #log: Logger;
  #last: Promise<void> = Promise.resolve();

  constructor(
    tracker: OffsetTracker,
    consumer: Pick<GroupConsumer, 'commit'>,
    commandTopics: readonly string[],
    log: Logger,
  ) {
    this.#tracker = tracker;
    this.#consumer = consumer;
    this.#commandTopics = commandTopics;
    this.#log = log;
  }

  /** Commits every partition, or just one. */
  commit(partition?: number): Promise<void> {
    this.#last = this.#last.then(() => this.#commitNow(partition));
    return this.#last;
  }

  /** Commits the partition and forgets its offsets: it is being handed over. */
  async commitAndForget(partition: number): Promise<void> {
    await this.commit(partition);
    for (const topic of this.#commandTopics) this.#tracker.forget(topic, partition);
  }

  async #commitNow(partition: number | undefined): Promise<void> {
    const offsets = this.#tracker
      .committableOffsets()
      .filter((o: TopicPartitionOffset) => partition === undefined || o.partition === partition);
    if (offsets.length === 0) return;
    try {
      await this.#consumer.commit(offsets);
      this.#tracker.markCommitted(offsets);
    } catch (error) {
      this.#log.warn({ err: error, partitions: offsets.length }, 'committing offsets failed');
    }
  }
}
