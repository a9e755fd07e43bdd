import { PartitionReleased } from '../errors.js';

/**
 * This instance's hold on one partition number:
 * - `restoring`: acquired; its ledger is being read and nothing runs yet;
 * - `active`: commands start and write;
 * - `releasing`: lost; no command starts, those running may still finish and write;
 * - `revoked`: nothing of this partition is written any more.
 */
export type LeaseState = 'restoring' | 'active' | 'releasing' | 'revoked';

export class Lease {
  readonly partition: number;
  #state: LeaseState = 'restoring';
  readonly #running = new Set<AbortController>();
  #onIdle: Array<() => void> = [];
  #settle!: () => void;
  /** Resolves once restoring is over: the lease turned active, or was revoked first. */
  readonly settled = new Promise<void>((resolve) => {
    this.#settle = resolve;
  });

  constructor(partition: number) {
    this.partition = partition;
  }

  get state(): LeaseState {
    return this.#state;
  }

  get canStart(): boolean {
    return this.#state === 'active';
  }

  activate(): void {
    if (this.#state === 'restoring') this.#state = 'active';
    this.#settle();
  }

  release(): void {
    if (this.#state !== 'revoked') this.#state = 'releasing';
  }

  revoke(): void {
    this.#state = 'revoked';
    this.#settle();
  }

  /** @throws PartitionReleased once revoked */
  assertWritable(): void {
    if (this.#state === 'revoked') {
      throw new PartitionReleased(`partition ${this.partition} was released`, {
        details: { partition: this.partition },
      });
    }
  }

  /** Registers a run; its signal aborts if the run outlives the release deadline. */
  startRun(): AbortController {
    const controller = new AbortController();
    this.#running.add(controller);
    return controller;
  }

  endRun(controller: AbortController): void {
    this.#running.delete(controller);
    if (this.#running.size === 0) {
      for (const resolve of this.#onIdle.splice(0)) resolve();
    }
  }

  whenIdle(): Promise<void> {
    if (this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onIdle.push(resolve));
  }

  abortRuns(reason: unknown): void {
    for (const controller of this.#running) controller.abort(reason);
  }
}
