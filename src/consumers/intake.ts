import { type FetchedBatch, type InboundRecord, keyPartition } from '../kafka/index.js';
import type { Lease, Partitions } from '../partitions/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import { type Job, newJob } from './job.js';
import type { KeyScheduler } from './key-scheduler.js';
import type { OffsetTracker } from './offset-tracker.js';
import { type RecordLimits, recordLimitBreach } from './record-limits.js';
import type { BridgeObserver } from './settings.js';

export interface IntakeOptions {
  readonly scheduler: KeyScheduler<Job>;
  readonly tracker: OffsetTracker;
  readonly partitions: Pick<Partitions, 'onLedgerBatch' | 'holdTopics'>;
  readonly leaseOf: (partition: number) => Lease | undefined;
  /** The command type of each command topic; other topics are the ledger's. */
  readonly typeOf: ReadonlyMap<string, CommandType>;
  /** The priority class of each command type (command-classes.ts). */
  readonly classOf: (type: CommandType) => string;
  /** Records over these are not forwarded; a key over its limit is scheduled by an excerpt. */
  readonly limits: RecordLimits;
  /** The command topics' partition count: a record keyed for another partition is forwarded. */
  readonly commandPartitions: number;
  readonly observer: BridgeObserver;
}

/**
 * Hands fetched command records to the scheduler, keyed by bizId, and returns at once: the
 * next fetch waits for this, so nothing slow happens here (a record's limits are checked when
 * it runs, before it is decoded). When the scheduler says a priority class is full (past its
 * share of MAX_PENDING commands or MAX_PENDING_BYTES of records while the whole is full) it
 * takes only part of a batch (the rest is fetched again later) and holds the topics of that
 * class back until the class is relieved: the other classes' topics are still fetched.
 */
export class Intake {
  readonly #options: IntakeOptions;
  readonly #held = new Set<string>();

  constructor(options: IntakeOptions) {
    this.#options = options;
  }

  onBatch(batch: FetchedBatch): void {
    const { scheduler, tracker, partitions, leaseOf, typeOf, classOf } = this.#options;
    const type = typeOf.get(batch.topic);
    if (type === undefined) {
      partitions.onLedgerBatch(batch);
      return;
    }
    // Fetched just before the partition was paused or lost: it is fetched again when due.
    const lease = leaseOf(batch.partition);
    const last = batch.records.at(-1);
    if (!lease?.canStart || last === undefined) return;
    // The records may run once the partition's marker says they may be in hand.
    const admitted = lease.guard?.admit(batch.topic, last.offset, batch.highWatermark);
    const name = classOf(type);
    let taken: string | undefined;
    for (const record of batch.records) {
      if (scheduler.isSaturated(name)) {
        this.#holdBack(name);
        break;
      }
      // false for a record already in hand: a rebalance moves the fetch position back to
      // the last commit, and the partition stayed here.
      if (tracker.track(record.topic, record.partition, record.offset)) {
        const job = newJob(record, type, this.#options.limits.maxKeyBytes);
        job.forwardTo = this.#forwardTarget(record);
        job.admitted = admitted;
        const careful = lease.guard?.schedulingKey(record);
        job.careful = careful !== undefined;
        scheduler.push(careful ?? schedulingKey(job), job);
      }
      taken = record.offset;
    }
    if (taken !== undefined) batch.resolve(taken);
  }

  /** The partition the record's key belongs to, when it is another and the record within limits. */
  #forwardTarget(record: InboundRecord): number | undefined {
    const { limits, commandPartitions } = this.#options;
    if (record.key === null || recordLimitBreach(record, limits)) return undefined;
    const target = keyPartition(record.key, commandPartitions);
    return target === record.partition ? undefined : target;
  }

  #holdBack(name: string): void {
    if (this.#held.has(name)) return;
    const { scheduler, observer } = this.#options;
    this.#held.add(name);
    this.#holdTopics();
    if (this.#held.size === 1) observer.consumptionPaused?.(true, 'backpressure');
    void scheduler.whenRelieved(name).then(() => {
      this.#held.delete(name);
      this.#holdTopics();
      if (this.#held.size === 0) observer.consumptionPaused?.(false, 'backpressure');
    });
  }

  /** The command topics of every class held back. */
  #holdTopics(): void {
    const { partitions, typeOf, classOf } = this.#options;
    const topics = [...typeOf].filter(([, type]) => this.#held.has(classOf(type)));
    partitions.holdTopics(new Set(topics.map(([topic]) => topic)));
  }
}

/**
 * A command runs under its bizId. Records to forward run under one key per topic and partition
 * instead, one at a time in offset order: the partition's forwarded mark says every record up to
 * it that had to be forwarded was, which holds only if no later one is forwarded before an
 * earlier one (forwarded concurrently, a later record's mark made an earlier one look done, and it
 * was finished without being forwarded). A leading space: no bizId starts with one.
 */
function schedulingKey(job: Job): string {
  const { topic, partition } = job.record;
  return job.forwardTo === undefined ? job.key : ` forward ${topic}/${partition}`;
}
