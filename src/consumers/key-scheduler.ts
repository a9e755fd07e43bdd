/** What a run of an item asks for: nothing more (it is finished), or another run later. */
export type RunVerdict = { readonly retryInMs: number } | undefined;

export interface KeySchedulerOptions<T> {
  /**
   * Runs one item. A run that has nothing left to do but wait (for its writes to be
   * acknowledged, say) calls `yieldSlot`: another key may then run in its slot, while its own key
   * stays held and the item stays pending until the run resolves.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a worker that never retries returns nothing
  worker: (item: T, yieldSlot: () => void) => Promise<RunVerdict | void>;
  /**
   * Items of one key in different lanes keep no order between them; while an item waits to run
   * again, later items of its lane wait behind it and items of other lanes may run. All items
   * share one lane unless this says otherwise.
   */
  lane?: (item: T) => string;
  /** Items running at once across all keys. */
  maxInFlight: number;
  /** The pending count at which isSaturated() turns true, i.e. the consumer pauses fetching. */
  maxPending: number;
  /**
   * The size of an item (the bytes of a record, say) and the pending size at which isSaturated()
   * turns true too. Without them only items are counted.
   */
  size?: (item: T) => number;
  maxPendingSize?: number;
  /** A safety net: the worker is expected to handle its own errors. */
  onError: (error: unknown, item: T) => void;
}

interface Waiter {
  /** Whether the waiter's condition holds now. */
  due: () => boolean;
  resolve: () => void;
}

interface Entry<T> {
  readonly item: T;
  readonly lane: string;
  readonly size: number;
  /** Set while the item waits out its retry delay. */
  timer?: NodeJS.Timeout | undefined;
}

/**
 * Runs items of one key strictly one at a time, different keys concurrently, with at most
 * maxInFlight running overall. Within a lane of a key, items run in push order; an item that
 * asks to run again later keeps its place at the head of its lane without holding a slot.
 */
export class KeyScheduler<T> {
  readonly #options: KeySchedulerOptions<T>;
  // Items not running, per key, in push order (an item waiting to retry goes back to the front);
  // a key is present while it has an item running or queued.
  readonly #queues = new Map<string, Array<Entry<T>>>();
  readonly #runningKeys = new Set<string>();
  // Keys with nothing running that may have an item ready, first come first served.
  readonly #ready = new Set<string>();
  #running = 0;
  #pending = 0;
  #pendingSize = 0;
  #waiters: Waiter[] = [];

  constructor(options: KeySchedulerOptions<T>) {
    if (!(options.maxInFlight >= 1) || !(options.maxPending >= 1)) {
      throw new RangeError('maxInFlight and maxPending must be at least 1');
    }
    this.#options = options;
  }

  /** Items queued, running or waiting to retry. */
  get pending(): number {
    return this.#pending;
  }

  get running(): number {
    return this.#running;
  }

  isSaturated(): boolean {
    const { maxPending, maxPendingSize = Number.POSITIVE_INFINITY } = this.#options;
    return this.#pending >= maxPending || this.#pendingSize >= maxPendingSize;
  }

  push(key: string, item: T): void {
    const size = this.#options.size?.(item) ?? 0;
    this.#pending++;
    this.#pendingSize += size;
    const entry: Entry<T> = { item, lane: this.#options.lane?.(item) ?? '', size };
    const queue = this.#queues.get(key);
    if (queue) queue.push(entry);
    else this.#queues.set(key, [entry]);
    if (!this.#runningKeys.has(key)) this.#ready.add(key);
    this.#pump();
  }

  /** Resolves when nothing is pending. */
  idle(): Promise<void> {
    return this.#when(() => this.#pending === 0);
  }

  /** Resolves once less than half of each bound is pending: fetching may resume. */
  whenRelieved(): Promise<void> {
    const { maxPending, maxPendingSize = Number.POSITIVE_INFINITY } = this.#options;
    return this.#when(
      () => this.#pending < Math.ceil(maxPending / 2) && this.#pendingSize < maxPendingSize / 2,
    );
  }

  #when(due: () => boolean): Promise<void> {
    if (due()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ due, resolve }));
  }

  /**
   * Drops queued items, including those waiting to retry (never running ones), that match,
   * returning them in queue order per key.
   */
  clear(predicate: (item: T, key: string) => boolean): T[] {
    const dropped: T[] = [];
    for (const [key, queue] of this.#queues) {
      const kept = queue.filter((entry) => {
        if (!predicate(entry.item, key)) return true;
        clearTimeout(entry.timer);
        dropped.push(entry.item);
        this.#pendingSize -= entry.size;
        return false;
      });
      this.#queues.set(key, kept);
      if (kept.length === 0 && !this.#runningKeys.has(key)) {
        this.#queues.delete(key);
        this.#ready.delete(key);
      }
    }
    this.#pending -= dropped.length;
    this.#notify();
    return dropped;
  }

  #pump(): void {
    while (this.#running < this.#options.maxInFlight) {
      const [key] = this.#ready;
      if (key === undefined) return;
      this.#ready.delete(key);
      const queue = this.#queues.get(key) ?? [];
      const index = runnableIndex(queue);
      if (index < 0) continue;
      const [entry] = queue.splice(index, 1) as [Entry<T>];
      this.#running++;
      this.#runningKeys.add(key);
      void this.#run(key, entry);
    }
  }

  async #run(key: string, entry: Entry<T>): Promise<void> {
    let holdsSlot = true;
    const yieldSlot = () => {
      if (!holdsSlot) return;
      holdsSlot = false;
      this.#running--;
      this.#pump();
    };
    let verdict: RunVerdict;
    try {
      verdict = (await this.#options.worker(entry.item, yieldSlot)) ?? undefined;
    } catch (error) {
      this.#options.onError(error, entry.item);
    }
    if (holdsSlot) this.#running--;
    this.#runningKeys.delete(key);
    const queue = this.#queues.get(key) ?? [];
    if (verdict) {
      queue.unshift(entry);
      entry.timer = setTimeout(() => {
        entry.timer = undefined;
        this.#wake(key);
      }, verdict.retryInMs);
    } else {
      this.#pending--;
      this.#pendingSize -= entry.size;
    }
    if (queue.length === 0) this.#queues.delete(key);
    else this.#ready.add(key);
    this.#pump();
    this.#notify();
  }

  #wake(key: string): void {
    if (this.#runningKeys.has(key) || !this.#queues.has(key)) return;
    this.#ready.add(key);
    this.#pump();
  }

  #notify(): void {
    const due = this.#waiters.filter((waiter) => waiter.due());
    this.#waiters = this.#waiters.filter((waiter) => !due.includes(waiter));
    for (const waiter of due) waiter.resolve();
  }
}

/** The first item whose lane is not held up by an earlier item waiting to retry; -1 if none. */
function runnableIndex<T>(queue: ReadonlyArray<Entry<T>>): number {
  let blocked: Set<string> | undefined;
  for (const [index, entry] of queue.entries()) {
    if (blocked?.has(entry.lane)) continue;
    if (entry.timer === undefined) return index;
    blocked ??= new Set();
    blocked.add(entry.lane);
  }
  return -1;
}
