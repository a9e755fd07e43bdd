/**
 * Which partition numbers this instance owns, and the handover of each (docs/design.md,
 * "Ownership and rebalances"). kafkajs has no "partitions revoked" callback and commands run
 * outside its fetch loop, so ownership moves explicitly: the new owner writes an `acquired`
 * marker, restores the ledger partition and waits for the previous owner's `released` marker;
 * the previous owner stops starting work, lets running commands finish and write, commits, and
 * writes `released`.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { LedgerUnwritable, OutboxClosed, PartitionReleased } from '../errors.js';
import type { FetchedBatch, GroupConsumer } from '../kafka/index.js';
import {
  type Ledger,
  markerRecord,
  markerTombstone,
  type OwnershipMarker,
  PartitionRestore,
} from '../ledger/index.js';
import type { Outbox } from '../producers/index.js';
import { settlesWithin } from './deadline.js';
import type { Job } from './job.js';
import type { KeyScheduler } from './key-scheduler.js';
import { Lease } from './lease.js';

// How long aborted runs get to wind down before the partition is revoked regardless.
const ABORT_GRACE_MS = 1_000;

export interface OwnershipOptions {
  readonly consumer: Pick<GroupConsumer, 'liveInstances'>;
  readonly instance: string;
  readonly ledger: Ledger;
  readonly outbox: Outbox;
  readonly scheduler: Pick<KeyScheduler<Job>, 'clear'>;
  /** Commits the partition's finished offsets and forgets the rest. */
  readonly commitAndForget: (partition: number) => Promise<void>;
  /** Something changed that decides what to fetch. Called synchronously. */
  readonly onChange: () => void;
  /**
   * A partition could not be taken on: the ledger topic refused its `acquired` marker for good.
   * The partition stays restoring (nothing of it runs) until it is released.
   */
  readonly onLedgerUnwritable: (error: LedgerUnwritable) => void;
  readonly handoverTimeoutMs: number;
  readonly log: Logger;
}

interface Restoring {
  readonly restore: PartitionRestore;
  readonly startedAt: number;
  /** Set once the acquired marker is written: the ledger partition is then read. */
  reading: boolean;
  timer?: NodeJS.Timeout;
}

export class Ownership {
  readonly #options: OwnershipOptions;
  readonly #leases = new Map<number, Lease>();
  readonly #restoring = new Map<number, Restoring>();
  // Acquiring and releasing one partition never overlap.
  readonly #chains = new Map<number, Promise<void>>();
  #assigned: readonly number[] = [];
  #stopping = false;
  #firstRestore: Promise<void> | undefined;

  constructor(options: OwnershipOptions) {
    this.#options = options;
  }

  get assigned(): readonly number[] {
    return this.#assigned;
  }

  leaseOf(partition: number): Lease | undefined {
    return this.#leases.get(partition);
  }

  /** Whether the ledger partition is being read. */
  isReadingLedger(partition: number): boolean {
    return this.#restoring.get(partition)?.reading === true;
  }

  /** Settles once the partitions of the first assignment are restored (or released again). */
  firstRestore(): Promise<void> | undefined {
    return this.#firstRestore;
  }

  onAssignment(partitions: readonly number[]): void {
    const previous = new Set(this.#assigned);
    this.#assigned = partitions;
    // Shutting down: releaseAll() releases whatever is held; nothing new is taken on.
    if (this.#stopping) {
      this.#options.onChange();
      return;
    }
    for (const partition of previous) {
      if (!partitions.includes(partition)) {
        this.#chain(partition, () => this.#release(partition, this.#options.handoverTimeoutMs / 2));
      }
    }
    const acquired = partitions.filter((partition) => !previous.has(partition));
    if (acquired.length > 0) {
      const live = this.#options.consumer.liveInstances().catch((error: unknown) => {
        this.#options.log.warn({ err: error }, 'group members unknown; waiting for every holder');
        return undefined;
      });
      const settled = acquired.map(async (partition) => {
        await this.#chain(partition, () => this.#acquire(partition, live));
        await this.#leases.get(partition)?.settled;
      });
      this.#firstRestore ??= Promise.all(settled).then(() => {});
    }
    this.#options.onChange();
  }

  onLedgerBatch(batch: FetchedBatch): void {
    const restoring = this.#restoring.get(batch.partition);
    const last = batch.records.at(-1);
    if (!restoring?.reading || last === undefined) return;
    for (const record of batch.records) restoring.restore.apply(record);
    batch.resolve(last.offset);
    const { restore } = restoring;
    if (restore.state === 'done') this.#activate(batch.partition, restoring);
    else if (restore.state === 'awaiting-release' && !restoring.timer) {
      restoring.timer = setTimeout(() => {
        this.#options.log.warn(
          { partition: batch.partition, instances: [...restore.waitingFor] },
          'previous owner did not release in time; taking over',
        );
        restore.stopWaiting();
        this.#activate(batch.partition, restoring);
      }, this.#options.handoverTimeoutMs);
    }
  }

  /** Releases every partition, giving running commands until the deadline to finish. */
  async releaseAll(deadlineMs: number): Promise<void> {
    this.#stopping = true;
    const partitions = [...this.#leases.keys()];
    await Promise.all(partitions.map((p) => this.#chain(p, () => this.#release(p, deadlineMs))));
  }

  #chain(partition: number, step: () => Promise<void>): Promise<void> {
    const next = (this.#chains.get(partition) ?? Promise.resolve()).then(step).catch((error) => {
      this.#options.log.error({ err: error, partition }, 'partition handover failed');
    });
    this.#chains.set(partition, next);
    return next;
  }

  async #acquire(partition: number, live: Promise<ReadonlySet<string> | undefined>): Promise<void> {
    if (this.#stopping || !this.#assigned.includes(partition)) return;
    const lease = new Lease(partition);
    this.#leases.set(partition, lease);
    const marker: OwnershipMarker = {
      kind: 'acquired',
      instance: this.#options.instance,
      nonce: randomUUID(),
    };
    const restore = new PartitionRestore(marker, await live);
    const restoring: Restoring = { restore, startedAt: Date.now(), reading: false };
    this.#restoring.set(partition, restoring);
    const { outbox, ledger } = this.#options;
    try {
      await outbox.write([markerRecord(ledger.topic, partition, marker)]);
    } catch (error) {
      this.#restoring.delete(partition);
      // Given up at shutdown: nothing to report. Otherwise Kafka refused it for good.
      if (!(error instanceof OutboxClosed)) this.#refused(partition, error);
      return;
    }
    restoring.reading = true;
    this.#options.onChange();
  }

  #refused(partition: number, cause: unknown): void {
    const { topic } = this.#options.ledger;
    const reason = cause instanceof Error ? cause.message : String(cause);
    const error = new LedgerUnwritable(
      `the ledger topic ${topic} refused this instance's records (partition ${partition}): ${reason}; the bridge does not run without writing its ledger`,
      { details: { topic, partition }, cause },
    );
    this.#options.onLedgerUnwritable(error);
  }

  #activate(partition: number, restoring: Restoring): void {
    clearTimeout(restoring.timer);
    this.#restoring.delete(partition);
    const { ledger, outbox, log } = this.#options;
    ledger.adopt(partition, restoring.restore.entries);
    this.#leases.get(partition)?.activate();
    this.#options.onChange();
    const others = restoring.restore.otherInstances();
    // Housekeeping: their ownership is over, so their markers can go.
    if (others.length > 0) {
      const tombstones = others.map((other) => markerTombstone(ledger.topic, partition, other));
      void outbox.write(tombstones).catch(() => {});
    }
    log.info(
      {
        partition,
        entries: restoring.restore.entries.size,
        unreadable: restoring.restore.unreadable,
        ms: Date.now() - restoring.startedAt,
      },
      'partition acquired',
    );
  }

  async #release(partition: number, deadlineMs: number): Promise<void> {
    const lease = this.#leases.get(partition);
    if (!lease) return;
    const started = Date.now();
    lease.release();
    const restoring = this.#restoring.get(partition);
    clearTimeout(restoring?.timer);
    this.#restoring.delete(partition);
    this.#options.scheduler.clear((job) => job.record.partition === partition);
    this.#options.onChange();
    await this.#drainRuns(lease, deadlineMs);
    lease.revoke();
    const { outbox, ledger, instance, log } = this.#options;
    await outbox.drain();
    await this.#options.commitAndForget(partition);
    ledger.drop(partition);
    const released: OwnershipMarker = { kind: 'released', instance, nonce: randomUUID() };
    await outbox.write([markerRecord(ledger.topic, partition, released)]);
    this.#leases.delete(partition);
    log.info({ partition, ms: Date.now() - started }, 'partition released');
  }

  async #drainRuns(lease: Lease, deadlineMs: number): Promise<void> {
    const idle = lease.whenIdle();
    if (await settlesWithin(idle, deadlineMs)) return;
    const reason = new PartitionReleased(`partition ${lease.partition} released`, {
      details: { partition: lease.partition },
    });
    lease.abortRuns(reason);
    await settlesWithin(idle, ABORT_GRACE_MS);
  }
}
