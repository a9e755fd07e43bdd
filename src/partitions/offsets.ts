/**
 * Offsets of ONE partition that were received and are not finished yet. Offsets are decimal
 * strings that may exceed 2^53, so they are BigInts inside. They arrive in increasing order,
 * possibly with gaps (compaction, transaction markers), and may finish in any order.
 */
export class PartitionOffsets {
  // From the lowest unfinished offset up, in arrival order; true once finished. Finished entries
  // at the front are dropped, so the first key is always the lowest unfinished offset.
  readonly #window = new Map<bigint, boolean>();
  #highestTracked: bigint | undefined;
  // The last committed position; before any commit, the first offset received, since committing
  // that would not move the group forward.
  #committed: bigint | undefined;
  #inFlight = 0;

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The offset after the highest one taken in hand; undefined before the first. */
  get nextInHand(): bigint | undefined {
    return this.#highestTracked === undefined ? undefined : this.#highestTracked + 1n;
  }

  /**
   * Returns false, tracking nothing, for an offset not above the highest one tracked: that is a
   * redelivery of a message already in hand. Call forget() on the tracker before seeking back.
   */
  track(offset: string): boolean {
    const value = BigInt(offset);
    if (this.#highestTracked !== undefined && value <= this.#highestTracked) return false;
    this.#highestTracked = value;
    this.#committed ??= value;
    this.#window.set(value, false);
    this.#inFlight++;
    return true;
  }

  /** Returns false for an offset that is not tracked or already finished. */
  finish(offset: string): boolean {
    const value = BigInt(offset);
    if (this.#window.get(value) !== false) return false;
    this.#window.set(value, true);
    this.#inFlight--;
    for (const [tracked, finished] of this.#window) {
      if (!finished) break;
      this.#window.delete(tracked);
    }
    return true;
  }

  /**
   * The offset to commit (Kafka's "next offset to read"): the lowest unfinished offset, or the
   * highest tracked + 1 when all are finished; undefined when that would not move past the
   * last commit.
   */
  committable(): string | undefined {
    const [lowestUnfinished] = this.#window.keys();
    const highest = this.#highestTracked;
    const next = lowestUnfinished ?? (highest === undefined ? undefined : highest + 1n);
    const committed = this.#committed;
    if (next === undefined || committed === undefined || next <= committed) return undefined;
    return next.toString();
  }

  markCommitted(offset: string): void {
    const value = BigInt(offset);
    if (this.#committed === undefined || value > this.#committed) this.#committed = value;
  }
}

export type { TopicPartitionOffset } from '../kafka/index.js';
