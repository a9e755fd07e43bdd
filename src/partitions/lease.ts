/**
 * This instance's hold on one partition number for one acquisition, as the commands running on
 * it see it: whether they may start, whether their writes are accepted, and which are running.
 * The partition machine (partition-machine.ts) decides; its driver flips these. A new
 * acquisition of the same number is a new lease, so a command left over from an earlier one
 * never writes under the new one.
 */
import { PartitionReleased } from '../errors.js';
import type { CrashGuard } from './crash-guard.js';

export class Lease {
  readonly partition: number;
  /** What this acquisition has in hand, and its care after a crash. */
  readonly guard: CrashGuard | undefined;
  /**
   * Per command topic, the last record of this partition forwarded to the partition its key
   * belongs to: restored with the ledger, so a record is forwarded once across owners.
   */
  readonly forwarded = new Map<string, bigint>();
  #startsAllowed = false;
  #revoked = false;
  readonly #running = new Set<AbortController>();
  #onIdle: Array<() => void> = [];

  constructor(partition: number, guard?: CrashGuard) {
    this.partition = partition;
    this.guard = guard;
  }

  get canStart(): boolean {
    return this.#startsAllowed;
  }

  /** Released: its writes are refused. */
  get revoked(): boolean {
    return this.#revoked;
  }

  /** @throws PartitionReleased once revoked */
  assertWritable(): void {
    if (!this.#revoked) return;
    throw new PartitionReleased(`partition ${this.partition} was released`, {
      details: { partition: this.partition },
    });
  }

  /** Registers a run; its signal aborts if the run outlives the release deadline. */
  startRun(): AbortController {
    const controller = new AbortController();
    this.#running.add(controller);
    return controller;
  }

  endRun(controller: AbortController): void {
    this.#running.delete(controller);
    if (this.#running.size === 0) this.#settleIdle();
  }

  whenIdle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onIdle.push(resolve));
  }

  allowStarts(): void {
    this.#startsAllowed = !this.#revoked;
  }

  stopStarts(): void {
    this.#startsAllowed = false;
  }

  abortRuns(reason: unknown): void {
    for (const controller of this.#running) controller.abort(reason);
  }

  revoke(): void {
    this.#startsAllowed = false;
    this.#revoked = true;
    this.#settleIdle();
  }

  #settleIdle(): void {
    for (const resolve of this.#onIdle.splice(0)) resolve();
  }
}

/** The current lease of each partition number this instance holds. */
export class Leases {
  readonly #leases = new Map<number, Lease>();

  current(partition: number): Lease | undefined {
    return this.#leases.get(partition);
  }

  /** A new acquisition: a fresh lease, which allows nothing to start yet. */
  open(partition: number, guard?: CrashGuard): Lease {
    const lease = new Lease(partition, guard);
    this.#leases.set(partition, lease);
    return lease;
  }

  /** Revokes the partition's lease and forgets it. */
  close(partition: number): void {
    this.#leases.get(partition)?.revoke();
    this.#leases.delete(partition);
  }
}
