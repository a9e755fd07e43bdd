import type { Logger } from 'pino';
import type { GroupConsumer } from '../kafka/index.js';
import type { LeaseHolder, PartitionTask } from './partition-task.js';

/**
 * Commits, per partition, up to the lowest unfinished offset, one commit at a time, and only
 * while this instance's lease holds (lease.ts): the commit of one that lost its partitions would
 * move its successor's position. A failed commit (a rebalance in progress, say) is only logged:
 * the next one covers it, and a command run again after a lost commit is skipped by the ledger.
 */
export interface OffsetCommitterOptions {
  readonly consumer: Pick<GroupConsumer, 'commit'>;
  readonly lease: LeaseHolder;
  readonly log: Logger;
}

export class OffsetCommitter {
  readonly #options: OffsetCommitterOptions;
  #last: Promise<void> = Promise.resolve();

  constructor(options: OffsetCommitterOptions) {
    this.#options = options;
  }

  /** Commits what the tasks finished; each is told what was committed once it was. */
  commit(tasks: readonly PartitionTask[]): Promise<void> {
    this.#last = this.#last.then(() => this.#commitNow(tasks));
    return this.#last;
  }

  async #commitNow(tasks: readonly PartitionTask[]): Promise<void> {
    const committing = tasks.map((task) => ({ task, offsets: task.committable() }));
    const offsets = committing.flatMap((c) => c.offsets);
    if (offsets.length === 0 || !this.#options.lease.holds()) return;
    try {
      await this.#options.consumer.commit(offsets);
      for (const { task, offsets: own } of committing) {
        for (const { topic, offset } of own) task.committed(topic, offset);
      }
    } catch (error) {
      this.#options.log.warn(
        { err: error, partitions: offsets.length },
        'committing offsets failed',
      );
    }
  }
}
