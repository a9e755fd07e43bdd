/**
 * What each key holds of each lane (a bizId's commands of one topic) and the bound on it
 * (docs/design.md, "Hot keys"): a key whose lane is at its bound takes no more of that lane, and
 * is told once it is below half of it, so that what it left in Kafka is fetched again.
 */
import type { Bounds } from './class-shares.js';

/** One key's items of one lane: queued, running or waiting to retry. */
export interface LaneLoad {
  readonly key: string;
  readonly lane: string;
  pending: number;
  size: number;
  /** Refused an item: told once below half of its bound. */
  watched: boolean;
  readonly bound: Bounds;
}

export class KeyLanes {
  // By lane, then key: lanes are few (the command types), keys many.
  readonly #loads = new Map<string, Map<string, LaneLoad>>();
  readonly #onRelieved: (key: string, lane: string) => void;

  constructor(onRelieved: (key: string, lane: string) => void) {
    this.#onRelieved = onRelieved;
  }

  /** An item of the key's lane is pending; returns its load, to give back to removed(). */
  added(key: string, lane: string, size: number, bound: Bounds): LaneLoad {
    const load = this.#load(key, lane, bound);
    load.pending++;
    load.size += size;
    return load;
  }

  removed(load: LaneLoad, size: number): void {
    load.pending--;
    load.size -= size;
    if (load.watched && isBelowHalf(load)) {
      load.watched = false;
      this.#onRelieved(load.key, load.lane);
    }
    if (load.pending === 0 && !load.watched) this.#loads.get(load.lane)?.delete(load.key);
  }

  /**
   * Whether the key's lane may take one more item: below its bound in items and in size (an item
   * may pass the size, so a key takes at least one however large). When not, the lane is watched.
   */
  hasRoom(key: string, lane: string, bound: Bounds): boolean {
    const load = this.#loads.get(lane)?.get(key);
    if (!load || (load.pending < bound.items && load.size < bound.size)) return true;
    load.watched = true;
    return false;
  }

  /** Per lane, the most items one key holds. */
  longest(): Map<string, number> {
    const longest = new Map<string, number>();
    for (const [lane, loads] of this.#loads) {
      let most = 0;
      for (const load of loads.values()) most = Math.max(most, load.pending);
      longest.set(lane, most);
    }
    return longest;
  }

  #load(key: string, lane: string, bound: Bounds): LaneLoad {
    let loads = this.#loads.get(lane);
    if (!loads) {
      loads = new Map();
      this.#loads.set(lane, loads);
    }
    let load = loads.get(key);
    if (!load) {
      load = { key, lane, pending: 0, size: 0, watched: false, bound };
      loads.set(key, load);
    }
    return load;
  }
}

function isBelowHalf({ pending, size, bound }: LaneLoad): boolean {
  return pending < Math.ceil(bound.items / 2) && size < bound.size / 2;
}
