/**
 * Offsets of ONE command topic of one partition: what was taken in hand and is not finished,
 * and which keys' records were left in Kafka because their key had no room (docs/design.md,
 * "Hot keys"). Offsets are decimal strings that may exceed 2^53, so they are BigInts inside.
 *
 * Records arrive in offset order, possibly with gaps, from where the fetch stands; it stands
 * lower again after a seek back to a held-back record or a rebalance, and a record seen before
 * is then skipped unless it is the first its key left behind. The commit never passes a record
 * in hand and unfinished, nor one left behind, so no seek or rebalance brings the fetch below
 * the last commit Kafka made: a record below it is of another log (the topic was deleted and created
 * again under this instance, kafkajs moving to its start), and these offsets say nothing of it.
 */

/** What becomes of a record as it arrives. */
export type Fate =
  /** Taken in hand: it runs. */
  | 'take'
  /** Left in Kafka: its key has no room, or an earlier record of its key was left. */
  | 'hold'
  /** Left in Kafka, the first of its key since it last had everything in hand. */
  | 'hold-first'
  /** Seen before: in hand, finished, or behind its key's first record left. */
  | 'skip'
  /** Below the last commit: the log is not the one these offsets are of. Nothing is taken. */
  | 'gone-back';

/**
 * A key with records left in Kafka. `at`: its first one left is at `from`, its later ones wait
 * behind it. Otherwise it is being taken again since a seek back: everything of it before `from`
 * was taken, and it has no record from `from` up to where the fetch stands.
 */
interface HeldKey {
  from: bigint;
  at: boolean;
}

const NONE: readonly string[] = [];

export class PartitionOffsets {
  // Taken and not finished.
  readonly #unfinished = new Set<bigint>();
  // The highest offset received, taken or left.
  #highest: bigint | undefined;
  // Where the fetch stands: the offset after the last one received, or a seek's target.
  #next: bigint | undefined;
  readonly #held = new Map<string, HeldKey>();
  // Held keys being taken again (not `at`).
  #taking = 0;
  #released: string[] = [];
  // The last committed position; before any commit, the first offset received, since committing
  // that would not move the group forward.
  #committed: bigint | undefined;
  // The last position Kafka said it committed: no fetch of this log comes back below it.
  #lastCommit: bigint | undefined;

  get inFlight(): number {
    return this.#unfinished.size;
  }

  /** The offset after the highest one received (taken or left); undefined before the first. */
  get nextInHand(): bigint | undefined {
    return this.#highest === undefined ? undefined : this.#highest + 1n;
  }

  /** Keys with records left in Kafka. */
  get heldKeys(): number {
    return this.#held.size;
  }

  /** Up to `limit` of those keys, for a look at which they are (the console); never on a hot path. */
  heldKeyNames(limit: number): string[] {
    const names: string[] = [];
    for (const key of this.#held.keys()) {
      if (names.length >= limit) break;
      names.push(key);
    }
    return names;
  }

  /** Whether the key has records left in Kafka, or is being taken again since a seek back. */
  holds(key: string): boolean {
    return this.#held.has(key);
  }

  /**
   * Decides the fate of the record of `key` at `offset`, the next the fetch brings. `hasRoom`
   * is asked only when taking it is the question (a record never seen, or its key's first left).
   */
  receive(offset: string, key: string, hasRoom: () => boolean): Fate {
    const value = BigInt(offset);
    if (this.#lastCommit !== undefined && value < this.#lastCommit) return 'gone-back';
    const seen = this.#highest !== undefined && value <= this.#highest;
    const fate = seen
      ? this.#receiveAgain(value, key, hasRoom)
      : this.#receiveNew(value, key, hasRoom);
    this.#next = value + 1n;
    if (this.#taking > 0 && this.#next > (this.#highest as bigint)) this.#caughtUp();
    return fate;
  }

  /** Returns false for an offset that is not in hand or already finished. */
  finish(offset: string): boolean {
    return this.#unfinished.delete(BigInt(offset));
  }

  /**
   * The keys that have had everything in hand again since the last call: the fetch passed the
   * highest record received while each was being taken again.
   */
  takeReleased(): readonly string[] {
    if (this.#released.length === 0) return NONE;
    const released = this.#released;
    this.#released = [];
    return released;
  }

  /**
   * The key has room again: where to fetch from so that its first record left comes back, when
   * the fetch has passed it; undefined otherwise (nothing of it left, or the fetch will reach it).
   */
  rewindFor(key: string): string | undefined {
    const held = this.#held.get(key);
    if (!held?.at || this.#next === undefined || held.from >= this.#next) return undefined;
    this.#next = held.from;
    return held.from.toString();
  }

  /**
   * Where to fetch from when what remains up to the highest record received holds nothing to
   * take (every held key's first record left is behind the fetch, and none is being taken
   * again): past it. Undefined while the fetch is beyond that, or something remains.
   */
  skipAhead(): string | undefined {
    const highest = this.#highest;
    const next = this.#next;
    if (highest === undefined || next === undefined || next > highest || this.#taking > 0) {
      return undefined;
    }
    for (const held of this.#held.values()) if (held.from >= next) return undefined;
    this.#next = highest + 1n;
    return this.#next.toString();
  }

  /**
   * The offset to commit (Kafka's "next offset to read"): the lowest of the records in hand and
   * unfinished and those left in Kafka; the highest received + 1 when there is none; undefined
   * when that would not move past the last commit.
   */
  committable(): string | undefined {
    if (this.#highest === undefined || this.#committed === undefined) return undefined;
    let next = this.#highest + 1n;
    for (const offset of this.#unfinished) if (offset < next) next = offset;
    for (const held of this.#held.values()) {
      // A key being taken again may have records left from where the fetch stands.
      const from = held.at ? held.from : (this.#next as bigint);
      if (from < next) next = from;
    }
    return next > this.#committed ? next.toString() : undefined;
  }

  markCommitted(offset: string): void {
    const value = BigInt(offset);
    if (this.#committed === undefined || value > this.#committed) this.#committed = value;
    if (this.#lastCommit === undefined || value > this.#lastCommit) this.#lastCommit = value;
  }

  #receiveNew(value: bigint, key: string, hasRoom: () => boolean): Fate {
    if (this.#taking > 0) this.#caughtUp();
    this.#highest = value;
    this.#committed ??= value;
    // Only `at` keys are held now.
    if (this.#held.has(key)) return 'hold';
    if (hasRoom()) {
      this.#unfinished.add(value);
      return 'take';
    }
    this.#held.set(key, { from: value, at: true });
    return 'hold-first';
  }

  #receiveAgain(value: bigint, key: string, hasRoom: () => boolean): Fate {
    const held = this.#held.get(key);
    if (!held || value < held.from || (held.at && value !== held.from)) return 'skip';
    // The first of the key's records left.
    if (hasRoom()) {
      this.#unfinished.add(value);
      if (held.at) this.#taking++;
      held.from = value + 1n;
      held.at = false;
      return 'take';
    }
    if (!held.at) this.#taking--;
    held.from = value;
    held.at = true;
    return 'hold';
  }

  /** The fetch passed the highest record received: keys being taken again have it all. */
  #caughtUp(): void {
    for (const [key, held] of this.#held) {
      if (held.at) continue;
      this.#held.delete(key);
      this.#released.push(key);
    }
    this.#taking = 0;
  }
}

export type { TopicPartitionOffset } from '../kafka/index.js';
