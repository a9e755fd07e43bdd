import type { FetchedBatch } from '../kafka/index.js';
import type { Partitions } from '../partitions/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import { forwardingKey, forwardTarget } from './forwarding.js';
import { type Job, newJob } from './job.js';
import type { KeyScheduler } from './key-scheduler.js';
import type { RecordLimits } from './record-limits.js';
import type { BridgeObserver } from './settings.js';

export interface IntakeOptions {
  readonly scheduler: KeyScheduler<Job>;
  readonly partitions: Pick<Partitions, 'onLedgerBatch' | 'holdTopics' | 'task'>;
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
    const { scheduler, partitions, typeOf, classOf, limits, commandPartitions } = this.#options;
    const type = typeOf.get(batch.topic);
    if (type === undefined) {
      partitions.onLedgerBatch(batch);
      return;
    }
    // Fetched just before the partition was paused or lost: it is fetched again when due.
    const task = partitions.task(batch.partition);
    const last = batch.records.at(-1);
    if (!task?.canStart || last === undefined) return;
    // The records may run once the partition's marker says they may be in hand.
    const admitted = task.admit(batch.topic, last.offset, batch.highWatermark);
    const name = classOf(type);
    let taken: string | undefined;
    for (const record of batch.records) {
      if (scheduler.isSaturated(name)) {
        this.#holdBack(name);
        break;
      }
      // false for a record already in hand: a rebalance moves the fetch position back to
      // the last commit, and the partition stayed here.
      if (task.track(record.topic, record.offset)) {
        const job = newJob(record, task, type, limits.maxKeyBytes);
        job.forwardTo = forwardTarget(record, limits, commandPartitions);
        job.admitted = admitted;
        const careful = task.carefulKey(record);
        job.careful = careful !== undefined;
        scheduler.push(careful ?? schedulingKey(job), job);
      }
      taken = record.offset;
    }
    if (taken !== undefined) batch.resolve(taken);
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

/** A command runs under its bizId; a record to forward, under its partition's forwarding key. */
function schedulingKey(job: Job): string {
  return job.forwardTo === undefined ? job.key : forwardingKey(job.record);
}
