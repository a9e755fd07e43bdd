/**
 * How the KeyScheduler's bounds are shared between classes of items (docs/design.md, "Priority
 * classes"). Each class has a share of the backlog bounds in proportion to its weight, and may
 * borrow beyond it while the whole is below the bounds: a class is full only when it is past its
 * share *and* the whole is full, so a class under its share is never held back by the others,
 * and an idle class lends what it does not use. Slots go to the class with work that has the
 * fewest running for its weight (ties: weighted turns), so a class with work never starves.
 */
import { WeightedTurns } from '../fairness/weighted-turns.js';

/** The class of items when no classes are given. */
export const ONE_CLASS = '';

/**
 * One key's lane may hold this fraction of its class's share (docs/design.md, "Hot keys"): a
 * class is filled only by that many keys at their bound. Smaller, a busy key's lane would be
 * fetched again from Kafka more often (each time half of it has run).
 */
export const LANES_PER_SHARE = 8;

export interface Bounds {
  readonly items: number;
  readonly size: number;
}

/** What one class has in hand, and its share of the bounds. */
export class ClassLoad {
  running = 0;
  pending = 0;
  size = 0;
  /** Keys that may have a runnable item of this class and run nothing, in the order they came. */
  readonly ready = new Set<string>();

  /** Of `pending` and `size`, the items waiting out a retry delay (a command awaiting its contract). */
  waiting = 0;
  waitingSize = 0;

  /** What one key may hold of one lane of the class. */
  readonly laneShare: Bounds;

  constructor(
    readonly name: string,
    readonly weight: number,
    readonly share: Bounds,
  ) {
    this.laneShare = {
      items: Math.max(1, Math.floor(share.items / LANES_PER_SHARE)),
      size: share.size / LANES_PER_SHARE,
    };
  }

  /** At or past its share of either bound. */
  isOver(): boolean {
    return this.pending >= this.share.items || this.size >= this.share.size;
  }

  /** Below half of its share of both bounds. */
  isBelowHalf(): boolean {
    return this.pending < Math.ceil(this.share.items / 2) && this.size < this.share.size / 2;
  }

  /** At or past its share of either bound, counting only items not waiting out a retry. */
  isOverRunnable(): boolean {
    return (
      this.pending - this.waiting >= this.share.items ||
      this.size - this.waitingSize >= this.share.size
    );
  }

  /** Below half of its share of both bounds, counting only items not waiting out a retry. */
  isBelowHalfRunnable(): boolean {
    return (
      this.pending - this.waiting < Math.ceil(this.share.items / 2) &&
      this.size - this.waitingSize < this.share.size / 2
    );
  }
}

export class ClassShares {
  readonly #classes = new Map<string, ClassLoad>();
  readonly #turns: WeightedTurns;

  /** `weights`: every class items may have, with its weight (at least one class). */
  constructor(weights: ReadonlyMap<string, number>, bounds: Bounds) {
    const given = weights.size > 0 ? weights : new Map([[ONE_CLASS, 1]]);
    this.#turns = new WeightedTurns(given);
    const total = [...given.values()].reduce((sum, weight) => sum + weight, 0);
    for (const [name, weight] of given) {
      const share = {
        items: Math.max(1, Math.floor((bounds.items * weight) / total)),
        size: (bounds.size * weight) / total,
      };
      this.#classes.set(name, new ClassLoad(name, weight, share));
    }
  }

  /** @throws RangeError for a class the weights did not name */
  of(name: string): ClassLoad {
    const load = this.#classes.get(name);
    if (!load) throw new RangeError(`unknown class ${JSON.stringify(name)}`);
    return load;
  }

  all(): Iterable<ClassLoad> {
    return this.#classes.values();
  }

  /**
   * The class whose item runs in the next free slot: of those with a ready key, the one with the
   * fewest running for its weight, then the one whose weighted turn it is.
   */
  /** Whether any class has a key ready to run. */
  hasReady(): boolean {
    for (const load of this.#classes.values()) if (load.ready.size > 0) return true;
    return false;
  }

  nextForSlot(): ClassLoad | undefined {
    let fewest = Number.POSITIVE_INFINITY;
    let level: string[] = [];
    for (const load of this.#classes.values()) {
      if (load.ready.size === 0) continue;
      const ratio = load.running / load.weight;
      if (ratio < fewest) [fewest, level] = [ratio, [load.name]];
      else if (ratio === fewest) level.push(load.name);
    }
    const name = this.#turns.next(level);
    return name === undefined ? undefined : this.#classes.get(name);
  }

  /** An item of the class started running in a slot. */
  started(load: ClassLoad): void {
    this.#turns.took(load.name);
  }

  /** A key that starts running is ready in no class. */
  notReady(key: string): void {
    for (const load of this.#classes.values()) load.ready.delete(key);
  }
}
