/**
 * Forwarding, the one place of its rule (docs/design.md, "Commands, events, topics"): a command
 * record found on a partition other than the one murmur2 gives its key (its producer partitions
 * by another hash) is copied untouched to its key's partition of the same topic and finished
 * where it was found, instead of run there.
 *
 * - Decide: a record within its limits, keyed, whose key belongs to another partition.
 * - Order: the records a partition forwards run under one scheduling key per topic and
 *   partition, one at a time in offset order: the partition's forwarded mark says every record
 *   up to it that had to be forwarded was, which holds only if no later one is forwarded before
 *   an earlier one.
 * - Write and mark: the copy and the partition's forwarded mark (in its ledger) are one write;
 *   the mark in the partition's task moves only once Kafka has both, since a refused copy must
 *   not leave a mark that says it went.
 * - Skip: a record at or below the mark was forwarded by an earlier owner: it is finished.
 * - Refused for good (too large for the topic, say): not forwarded; it runs where it was found,
 *   retries included.
 */
import type { Logger } from 'pino';
import { KafkaWriteFailed } from '../errors.js';
import { type InboundRecord, keyPartition } from '../kafka/index.js';
import { forwardedRecord } from '../ledger/index.js';
import type { PartitionTask } from '../partitions/index.js';
import { forwardedCopy, type Outbox } from '../producers/index.js';
import type { Job } from './job.js';
import { type RecordLimits, recordLimitBreach } from './record-limits.js';
import type { BridgeObserver } from './settings.js';

/** The partition the record's key belongs to, when it is another and the record within limits. */
export function forwardTarget(
  record: InboundRecord,
  limits: RecordLimits,
  partitions: number,
): number | undefined {
  if (record.key === null || recordLimitBreach(record, limits)) return undefined;
  const target = keyPartition(record.key, partitions);
  return target === record.partition ? undefined : target;
}

/** The scheduling key of the records a partition forwards. A leading space: no bizId has one. */
export function forwardingKey({ topic, partition }: InboundRecord): string {
  return ` forward ${topic}/${partition}`;
}

export interface ForwardingOptions {
  readonly outbox: Outbox;
  readonly ledgerTopic: string;
  readonly observer: BridgeObserver;
  readonly log: Logger;
}

export class Forwarding {
  readonly #options: ForwardingOptions;

  constructor(options: ForwardingOptions) {
    this.#options = options;
  }

  /**
   * Forwards the job's record to `job.forwardTo` unless an earlier owner did. True: it went (now
   * or before), and is to be finished here unrun. False: Kafka refused the copy for good, and
   * the record runs here, now and on every retry.
   * @throws PartitionReleased, before writing, once the task is released
   */
  async forward(job: Job, partition: number): Promise<boolean> {
    const { record, task } = job;
    const { topic, offset } = record;
    if (BigInt(offset) <= task.forwardedUpTo(topic)) return true;
    try {
      await this.#write(record, partition, task);
    } catch (error) {
      if (!(error instanceof KafkaWriteFailed) || error.retryable) throw error;
      this.#options.log.error(
        { err: error, topic, offset, partition },
        'not forwarded; running it here',
      );
      job.forwardTo = undefined;
      return false;
    }
    this.#options.observer.recordForwarded?.({ type: job.type });
    return true;
  }

  async #write(record: InboundRecord, partition: number, task: PartitionTask): Promise<void> {
    task.assertWritable();
    const { topic, offset } = record;
    const upTo = new Map(task.forwarded).set(topic, BigInt(offset));
    const mark = forwardedRecord(
      this.#options.ledgerTopic,
      record.partition,
      upTo,
      task.acquisition,
    );
    await this.#options.outbox.write([forwardedCopy(record, partition), mark], task);
    task.markForwarded(topic, BigInt(offset));
  }
}
