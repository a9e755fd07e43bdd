/**
 * At most `limit` requests handed to the dispatcher at once, the others waiting here in call
 * order. The transport signs a request only once it has its slot, so the timestamp and nonce a
 * request carries are taken when it is about to be written, not when it joined a queue: with the
 * pool's `connections` equal to `limit`, a dispatched request does not queue again in undici.
 * A waiter whose signal aborts (the caller's, or the call's deadline) leaves the queue at once.
 */

import type { AbortSource } from './call-deadline.js';

/** Gives the slot back; a second call does nothing. */
export type ReleaseSlot = () => void;

interface Waiter {
  readonly grant: (release: ReleaseSlot) => void;
}

export class RequestGate {
  readonly #limit: number;
  /** Waiters in call order: a Set keeps insertion order and deletes one in O(1). */
  readonly #waiters = new Set<Waiter>();
  #active = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`invalid limit: ${limit}`);
    this.#limit = limit;
  }

  /** Requests holding a slot. */
  get active(): number {
    return this.#active;
  }

  /** Requests waiting for one. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /**
   * Resolves with the function that gives the slot back, once the caller has one: at once while
   * fewer than `limit` are held and nobody waits, else when every earlier waiter has had its
   * turn. If the signal aborts first, it rejects with the signal's reason and holds nothing.
   */
  acquire(signal?: AbortSource): Promise<ReleaseSlot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.#limit && this.#waiters.size === 0) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  #releaser(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#handOn();
    };
  }

  /** The freed slot goes straight to the first waiter, or back to the pool of free ones. */
  #handOn(): void {
    const next = this.#waiters.values().next();
    if (next.done) {
      this.#active--;
      return;
    }
    this.#waiters.delete(next.value);
    next.value.grant(this.#releaser());
  }
}
