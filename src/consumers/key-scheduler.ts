export interface KeySchedulerOptions<T> {
  worker: (item: T) => Promise<void>;
  /** Items running at once across all keys. */
  maxInFlight: number;
  /** The pending count at which isSaturated() turns true, i.e. the consumer pauses fetching. */
  maxPending: number;
  /** A safety net: the worker is expected to handle its own errors. */
  onError: (error: unknown, item: T) => void;
}

interface Waiter {
  threshold: number;
  resolve: () => void;
}

/**
 * Runs items of one key strictly one at a time in push order, different keys concurrently, with
 * at most maxInFlight running overall.
 */
export class KeyScheduler<T> {
  readonly #options: KeySchedulerOptions<T>;
  // Items not yet started, per key; a key is present while it has an item running or queued.
  readonly #queues = new Map<string, T[]>();
  // Keys with nothing running and a queued item, waiting for a free slot, first come first served.
  #ready: string[] = [];
  #running = 0;
  #pending = 0;
  #waiters: Waiter[] = [];

  constructor(options: KeySchedulerOptions<T>) {
    if (!(options.maxInFlight >= 1) || !(options.maxPending >= 1)) {
      throw new RangeError('maxInFlight and maxPending must be at least 1');
    }
    this.#options = options;
  }

  /** Items queued or running. */
  get pending(): number {
    return this.#pending;
  }

  isSaturated(): boolean {
    return this.#pending >= this.#options.maxPending;
  }

  push(key: string, item: T): void {
    this.#pending++;
    const queue = this.#queues.get(key);
    if (queue) {
      queue.push(item);
    } else {
      this.#queues.set(key, [item]);
      this.#ready.push(key);
    }
    this.#pump();
  }

  /** Resolves once fewer than `threshold` items are pending (at once if that is already so). */
  whenBelow(threshold: number): Promise<void> {
    if (this.#pending < threshold) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ threshold, resolve }));
  }

  /** Resolves when nothing is pending. */
  idle(): Promise<void> {
    return this.whenBelow(1);
  }

  /** Drops queued items (never running ones) that match, returning them in push order per key. */
  clear(predicate: (item: T, key: string) => boolean): T[] {
    const dropped: T[] = [];
    for (const [key, queue] of this.#queues) {
      const kept: T[] = [];
      for (const item of queue) (predicate(item, key) ? dropped : kept).push(item);
      this.#queues.set(key, kept);
    }
    // A ready key has nothing running, so once its queue is empty the key is done.
    this.#ready = this.#ready.filter((key) => {
      if (this.#queues.get(key)?.length) return true;
      this.#queues.delete(key);
      return false;
    });
    this.#pending -= dropped.length;
    this.#notify();
    return dropped;
  }

  #pump(): void {
    while (this.#running < this.#options.maxInFlight) {
      const key = this.#ready.shift();
      if (key === undefined) return;
      // A ready key always has a queued item.
      const item = this.#queues.get(key)?.shift() as T;
      this.#running++;
      void this.#run(key, item);
    }
  }

  async #run(key: string, item: T): Promise<void> {
    try {
      await this.#options.worker(item);
    } catch (error) {
      this.#options.onError(error, item);
    } finally {
      this.#running--;
      this.#pending--;
      if (this.#queues.get(key)?.length) this.#ready.push(key);
      else this.#queues.delete(key);
      this.#pump();
      this.#notify();
    }
  }

  #notify(): void {
    const due = this.#waiters.filter((waiter) => this.#pending < waiter.threshold);
    this.#waiters = this.#waiters.filter((waiter) => this.#pending >= waiter.threshold);
    for (const waiter of due) waiter.resolve();
  }
}
