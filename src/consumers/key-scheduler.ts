import { type ClassLoad, ClassShares, ONE_CLASS } from './class-shares.js';
import { KeyLanes, type LaneLoad } from './key-lanes.js';

/**
 * What a run of an item asks for: nothing more (it is finished), or another run later: after
 * retryInMs, or once `until` says so if that comes first (retryInMs may then be Infinity).
 */
export type RunVerdict = { readonly retryInMs: number; readonly until?: Wake } | undefined;

/** Calls `resume` once, never synchronously; returns a function that stops waiting. */
export type Wake = (resume: () => void) => () => void;

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
  /**
   * The class of an item (class-shares.ts): slots and the pending bounds are shared between
   * classes by weight. Every item of a lane must be of one class. One class unless this says
   * otherwise.
   */
  classOf?: (item: T) => string;
  /** Every class classOf may answer, with its weight. */
  weights?: ReadonlyMap<string, number>;
  /** Items running at once across all keys. */
  maxInFlight: number;
  /** The pending count at which the classes past their share are saturated. */
  maxPending: number;
  /**
   * The size of an item (the bytes of a record, say) and the pending size at which the classes
   * past their share are saturated too. Without them only items are counted.
   */
  size?: (item: T) => number;
  maxPendingSize?: number;
  /** A safety net: the worker is expected to handle its own errors. */
  onError: (error: unknown, item: T) => void;
  /**
   * A key's lane that refused an item (laneHasRoom) is below half of its bound: it may take its
   * items again.
   */
  onLaneRelieved?: (key: string, lane: string) => void;
}

interface Waiter {
  /** Whether the waiter's condition holds now. */
  due: () => boolean;
  resolve: () => void;
}

interface Entry<T> {
  readonly item: T;
  readonly lane: string;
  readonly load: ClassLoad;
  readonly laneLoad: LaneLoad;
  readonly size: number;
  /** Set while the item waits to run again: stops the wait. */
  stopWaiting?: (() => void) | undefined;
  /** When it became ready to run (pushed, or its retry delay over), as a sequence number. */
  readySince: number;
}

/**
 * Runs items of one key strictly one at a time, different keys concurrently, with at most
 * maxInFlight running overall. Within a lane of a key, items run in push order; an item that
 * asks to run again later keeps its place at the head of its lane without holding a slot. Slots
 * go to classes by weight; within a class, keys are served first come first served, and of a
 * key's items, the first runnable one of the class whose turn it is runs. What one key holds of
 * one lane is bounded for whoever asks before pushing (laneHasRoom).
 */
export class KeyScheduler<T> {
  readonly #options: KeySchedulerOptions<T>;
  readonly #classes: ClassShares;
  readonly #lanes: KeyLanes;
  // Items not running, per key, in push order (an item waiting to retry goes back to the front);
  // a key is present while it has an item running or queued.
  readonly #queues = new Map<string, Array<Entry<T>>>();
  /** Orders items by when they became ready to run. */
  #readySequence = 0;
  readonly #runningKeys = new Set<string>();
  #running = 0;
  // At most maxInFlight: lowered while the event loop is too busy (in-flight-limit.ts).
  #limit: number;
  #pending = 0;
  #pendingSize = 0;
  // Of those, the items waiting out a retry delay.
  #waiting = 0;
  #waitingSize = 0;
  #waiters: Waiter[] = [];

  constructor(options: KeySchedulerOptions<T>) {
    if (!(options.maxInFlight >= 1) || !(options.maxPending >= 1)) {
      throw new RangeError('maxInFlight and maxPending must be at least 1');
    }
    this.#options = options;
    this.#limit = options.maxInFlight;
    const { maxPending: items, maxPendingSize: size = Number.POSITIVE_INFINITY } = options;
    this.#classes = new ClassShares(options.weights ?? new Map(), { items, size });
    this.#lanes = new KeyLanes((key, lane) => options.onLaneRelieved?.(key, lane));
  }

  /** Items queued, running or waiting to retry. */
  get pending(): number {
    return this.#pending;
  }

  get running(): number {
    return this.#running;
  }

  /** Items that may run at once now. */
  get inFlightLimit(): number {
    return this.#limit;
  }

  /** Whether every slot is taken while items are ready to run. */
  get saturated(): boolean {
    return this.#running >= this.#limit && this.#classes.hasReady();
  }

  /** Sets how many items may run at once, from 1 to maxInFlight; running ones are not stopped. */
  limitInFlight(limit: number): void {
    this.#limit = Math.min(this.#options.maxInFlight, Math.max(1, Math.floor(limit)));
    this.#pump();
  }

  /** Each class's items running and pending. */
  byClass(): Array<{ name: string; running: number; pending: number }> {
    return [...this.#classes.all()].map(({ name, running, pending }) => ({
      name,
      running,
      pending,
    }));
  }

  /**
   * Whether the class should take no more items: past its share of a bound while everything
   * pending reaches one. At most maxPending items (and maxPendingSize) are pending while any
   * class is past its share, plus what the others hold within theirs: under twice the bounds.
   */
  isSaturated(name = ONE_CLASS): boolean {
    return this.#classes.of(name).isOver() && this.#isFull();
  }

  /**
   * isSaturated for the items others of the class wait for (create-contracts, which commands
   * waiting for their contract retry on): items waiting out a retry delay do not count, so that
   * commands waiting for their prerequisite never keep it from being taken (docs/design.md, "Hot
   * keys"). Those waiting were taken within the bounds, so this adds at most the bounds again.
   */
  isSaturatedForPrerequisites(name = ONE_CLASS): boolean {
    const { maxPending, maxPendingSize = Number.POSITIVE_INFINITY } = this.#options;
    const wholeFull =
      this.#pending - this.#waiting >= maxPending ||
      this.#pendingSize - this.#waitingSize >= maxPendingSize;
    return this.#classes.of(name).isOverRunnable() && wholeFull;
  }

  /**
   * Whether the key's lane may take one more item: below its bound (the class's laneShare of
   * items and of size). When not, onLaneRelieved is called once it is below half of it.
   */
  laneHasRoom(key: string, lane: string, name = ONE_CLASS): boolean {
    return this.#lanes.hasRoom(key, lane, this.#classes.of(name).laneShare);
  }

  /** Per lane, the most items one key holds. */
  longestLanes(): ReadonlyMap<string, number> {
    return this.#lanes.longest();
  }

  push(key: string, item: T): void {
    const size = this.#options.size?.(item) ?? 0;
    const load = this.#classes.of(this.#options.classOf?.(item) ?? ONE_CLASS);
    this.#pending++;
    this.#pendingSize += size;
    load.pending++;
    load.size += size;
    const lane = this.#options.lane?.(item) ?? '';
    const laneLoad = this.#lanes.added(key, lane, size, load.laneShare);
    const entry: Entry<T> = { item, lane, load, laneLoad, size, readySince: this.#readySequence++ };
    const queue = this.#queues.get(key);
    if (queue) queue.push(entry);
    else this.#queues.set(key, [entry]);
    if (!this.#runningKeys.has(key)) load.ready.add(key);
    this.#pump();
  }

  /** Resolves when nothing is pending. */
  idle(): Promise<void> {
    return this.#when(() => this.#pending === 0);
  }

  /**
   * Resolves once the class may take items again: below half of its share of both bounds, or
   * everything pending below half of both.
   */
  whenRelieved(name = ONE_CLASS): Promise<void> {
    const load = this.#classes.of(name);
    const { maxPending, maxPendingSize = Number.POSITIVE_INFINITY } = this.#options;
    const wholeBelowHalf = () =>
      this.#pending < Math.ceil(maxPending / 2) && this.#pendingSize < maxPendingSize / 2;
    return this.#when(() => load.isBelowHalf() || wholeBelowHalf());
  }

  /** whenRelieved for isSaturatedForPrerequisites: items waiting out a retry do not count. */
  whenRelievedForPrerequisites(name = ONE_CLASS): Promise<void> {
    const load = this.#classes.of(name);
    const { maxPending, maxPendingSize = Number.POSITIVE_INFINITY } = this.#options;
    const wholeBelowHalf = () =>
      this.#pending - this.#waiting < Math.ceil(maxPending / 2) &&
      this.#pendingSize - this.#waitingSize < maxPendingSize / 2;
    return this.#when(() => load.isBelowHalfRunnable() || wholeBelowHalf());
  }

  #isFull(): boolean {
    const { maxPending, maxPendingSize = Number.POSITIVE_INFINITY } = this.#options;
    return this.#pending >= maxPending || this.#pendingSize >= maxPendingSize;
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
        if (entry.stopWaiting !== undefined) {
          this.#waitingChanged(entry, -1);
          entry.stopWaiting();
        }
        dropped.push(entry.item);
        this.#forget(entry);
        return false;
      });
      this.#queues.set(key, kept);
      if (kept.length === 0 && !this.#runningKeys.has(key)) {
        this.#queues.delete(key);
        this.#classes.notReady(key);
      }
    }
    this.#notify();
    return dropped;
  }

  #pump(): void {
    while (this.#running < this.#limit) {
      const load = this.#classes.nextForSlot();
      if (load === undefined) return;
      // The class has a ready key.
      const key = load.ready.values().next().value as string;
      load.ready.delete(key);
      const queue = this.#queues.get(key) ?? [];
      const index = runnableIndex(queue, load);
      if (index < 0) continue;
      const [entry] = queue.splice(index, 1) as [Entry<T>];
      this.#running++;
      load.running++;
      this.#classes.started(load);
      this.#classes.notReady(key);
      this.#runningKeys.add(key);
      void this.#run(key, entry);
    }
  }

  async #run(key: string, entry: Entry<T>): Promise<void> {
    let holdsSlot = true;
    const freeSlot = () => {
      holdsSlot = false;
      this.#running--;
      entry.load.running--;
    };
    const yieldSlot = () => {
      if (!holdsSlot) return;
      freeSlot();
      this.#pump();
    };
    let verdict: RunVerdict;
    try {
      verdict = (await this.#options.worker(entry.item, yieldSlot)) ?? undefined;
    } catch (error) {
      this.#options.onError(error, entry.item);
    }
    if (holdsSlot) freeSlot();
    this.#runningKeys.delete(key);
    const queue = this.#queues.get(key) ?? [];
    if (verdict) {
      queue.unshift(entry);
      this.#hold(key, entry, verdict);
    } else {
      this.#forget(entry);
    }
    if (queue.length === 0) this.#queues.delete(key);
    else this.#markReady(key, queue);
    this.#pump();
    this.#notify();
  }

  /** The item waits, without a slot, until its delay is over or its `until` wakes it. */
  #hold(key: string, entry: Entry<T>, { retryInMs, until }: NonNullable<RunVerdict>): void {
    this.#waitingChanged(entry, 1);
    const resume = () => {
      entry.stopWaiting?.();
      entry.stopWaiting = undefined;
      this.#waitingChanged(entry, -1);
      entry.readySince = this.#readySequence++;
      this.#wake(key);
    };
    const timer = Number.isFinite(retryInMs) ? setTimeout(resume, retryInMs) : undefined;
    const stopUntil = until?.(resume);
    entry.stopWaiting = () => {
      clearTimeout(timer);
      stopUntil?.();
    };
  }

  #wake(key: string): void {
    const queue = this.#queues.get(key);
    if (this.#runningKeys.has(key) || !queue) return;
    this.#markReady(key, queue);
    this.#pump();
  }

  /** The key is ready in the class of each item it holds (#pump skips what cannot run yet). */
  #markReady(key: string, queue: ReadonlyArray<Entry<T>>): void {
    for (const entry of queue) entry.load.ready.add(key);
  }

  /** The item starts (1) or stops (-1) waiting out a retry delay. */
  #waitingChanged(entry: Entry<T>, by: 1 | -1): void {
    this.#waiting += by;
    this.#waitingSize += by * entry.size;
    entry.load.waiting += by;
    entry.load.waitingSize += by * entry.size;
  }

  /** The item is no longer pending. */
  #forget(entry: Entry<T>): void {
    this.#pending--;
    this.#pendingSize -= entry.size;
    entry.load.pending--;
    entry.load.size -= entry.size;
    this.#lanes.removed(entry.laneLoad, entry.size);
  }

  #notify(): void {
    const due = this.#waiters.filter((waiter) => waiter.due());
    this.#waiters = this.#waiters.filter((waiter) => !due.includes(waiter));
    for (const waiter of due) waiter.resolve();
  }
}

/**
 * Of the class's items that may run (the first of each lane, unless it waits to retry), the one
 * ready the longest; -1 if none. A command that keeps retrying (one waiting for its contract)
 * so never takes its key's turn from one of another lane that was ready before it (the very
 * create-contract it waits for).
 */
function runnableIndex<T>(queue: ReadonlyArray<Entry<T>>, load: ClassLoad): number {
  const seen = new Set<string>();
  let chosen = -1;
  for (const [index, entry] of queue.entries()) {
    if (entry.load !== load || seen.has(entry.lane)) continue;
    seen.add(entry.lane);
    if (entry.stopWaiting !== undefined) continue;
    if (chosen < 0 || entry.readySince < (queue[chosen] as Entry<T>).readySince) chosen = index;
  }
  return chosen;
}
