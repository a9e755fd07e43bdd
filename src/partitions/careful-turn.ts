/**
 * A careful partition's one turn (crash-guard.ts): while care lasts, a run of the partition
 * takes the turn or waits for it, holding nothing (the scheduler keeps it aside without a slot
 * until it is woken: key-scheduler.ts, a verdict's `until`). A turn that ends wakes the first
 * waiter only, so N waiting runs cost N wake-ups, not N²; one woken after another took the turn
 * asks again and waits again. When care ends every waiter goes at once, and so does whoever asks
 * from then on.
 */

/**
 * Calls `resume` once, never synchronously; returns a function that stops waiting (the
 * scheduler's `Wake`, src/consumers/key-scheduler.ts).
 */
export type Wake = (resume: () => void) => () => void;

/** Runs waiting for something, first come first woken. */
export class Waiters {
  // A Set keeps the order and forgets a waiter that stops waiting at once.
  readonly #waiting = new Set<() => void>();

  /** Adds a waiter; returns the function that stops waiting. */
  add(resume: () => void): () => void {
    let waiting = true;
    // Once released, a waiter is called a microtask later: stopping in between still counts.
    const waiter = () => {
      if (waiting) resume();
      waiting = false;
    };
    this.#waiting.add(waiter);
    return () => {
      waiting = false;
      this.#waiting.delete(waiter);
    };
  }

  /** Wakes the first `count` waiters (all by default), a microtask later. */
  release(count = Number.POSITIVE_INFINITY): void {
    const released: Array<() => void> = [];
    for (const waiter of this.#waiting) {
      if (released.length >= count) break;
      released.push(waiter);
    }
    for (const waiter of released) this.#waiting.delete(waiter);
    if (released.length === 0) return;
    queueMicrotask(() => {
      for (const waiter of released) waiter();
    });
  }
}

export class CarefulTurn {
  #held = false;
  #open = false;
  readonly #waiters = new Waiters();

  /** The turn and the function that ends it; undefined while another run holds it. */
  take(): (() => void) | undefined {
    if (this.#held) return undefined;
    this.#held = true;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#held = false;
      this.#waiters.release(1);
    };
  }

  /**
   * Wakes the waiter once it may take the turn. Asked after the turn was refused, perhaps a
   * moment later: what changed meanwhile is looked at again.
   */
  readonly whenFree: Wake = (resume) => {
    const stop = this.#waiters.add(resume);
    if (this.#open) this.#waiters.release();
    else if (!this.#held) this.#waiters.release(1);
    return stop;
  };

  /** Care is over: every run waiting goes now, and any run from now on. */
  open(): void {
    this.#open = true;
    this.#waiters.release();
  }
}
