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
  /** Records over these are not forwarded; a key over its limit is scheduled by an excerpt. */
  readonly limits: RecordLimits;
  /** The command topics' partition count: a record keyed for another partition is forwarded. */
  readonly commandPartitions: number;
  readonly observer: BridgeObserver;
}

/**
 * Hands fetched command records to the scheduler, keyed by bizId, and returns at once: the
 * next fetch waits for this, so nothing slow happens here (a record's limits are checked when
 * it runs, before it is decoded). When the scheduler is full (MAX_PENDING commands or
 * MAX_PENDING_BYTES of records) it takes only part of a batch (the rest is fetched again later)
 * and holds fetching back until less than half of each is pending.
 */
export class Intake {
  readonly #options: IntakeOptions;
  #holding = false;

  constructor(options: IntakeOptions) {
    this.#options = options;
  }

  onBatch(batch: FetchedBatch): void {
    const { scheduler, tracker, partitions, leaseOf, typeOf } = this.#options;
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
    let taken: string | undefined;
    for (const record of batch.records) {
      if (scheduler.isSaturated()) {
        this.#holdBack();
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
        scheduler.push(careful ?? job.key, job);
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

  #holdBack(): void {
    if (this.#holding) return;
    this.#holding = true;
    const { partitions, scheduler, typeOf, observer } = this.#options;
    partitions.holdTopics(new Set(typeOf.keys()));
    observer.consumptionPaused?.(true, 'backpressure');
    void scheduler.whenRelieved().then(() => {
      this.#holding = false;
      partitions.holdTopics(new Set());
      observer.consumptionPaused?.(false, 'backpressure');
    });
  }
}
