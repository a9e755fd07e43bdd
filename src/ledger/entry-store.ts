/**
 * One partition's ledger entries with a memory bound (docs/design.md, "The ledger's memory
 * bound"): a Map of bizId to stored entry that keeps its entries in the order last written and
 * an estimate of the bytes they take. When the estimate passes the bound, the oldest entries
 * with nothing open leave until it is a tenth below (in batches, so a full partition does not
 * evict on every write); an entry with a command open never leaves. The newest write time of
 * an entry that left is where the partition's memory now starts: its effective replay window.
 */

import { hasOpenCommands } from './entry.js';
import { decodeEntry } from './ledger-record.js';

/** `<seconds since EPOCH>|<JSON written>` (ledger.ts). */
type StoredEntry = string;

// Bytes of one entry besides its two strings' characters: the Map's slot, the two string
// headers, their heap alignment and the hash table's spare room. Calibrated by `npm run bench --
// --only ledger` (bench/README.md): with 96, the live heap grew 342 bytes per entry held while
// the estimate counted 276.
export const ENTRY_OVERHEAD_BYTES = 160;
const LOW_WATER = 0.9;
const SEPARATOR = '|';
// Only a JSON entry with an empty open list contains this: in a JSON string a quote is escaped.
const NOTHING_OPEN = '"open":[]';

/** Estimated bytes of one entry: each character counted once (one-byte strings). */
export function entryBytes(bizId: string, stored: StoredEntry): number {
  return ENTRY_OVERHEAD_BYTES + bizId.length + stored.length;
}

/** Whether the entry has a command under way; cheap for the usual entry with none open. */
export function isOpen(stored: StoredEntry): boolean {
  if (stored.includes(NOTHING_OPEN)) return false;
  const entry = decodeEntry(stored.slice(stored.indexOf(SEPARATOR) + 1));
  // An entry that cannot be read is of no use to keep.
  return entry !== undefined && hasOpenCommands(entry);
}

function writtenAtMs(stored: StoredEntry, epochMs: number): number {
  return Number.parseInt(stored, 10) * 1_000 + epochMs;
}

export interface Eviction {
  /** Entries that left. */
  readonly count: number;
  /** The newest write time among them, in ms. */
  readonly upToMs: number;
}

export class EntryStore extends Map<string, StoredEntry> {
  #bytes = 0;
  #limit: number;
  #evictedUpToMs: number | undefined;
  #evicted = 0;
  readonly #epochMs: number;
  readonly #onEvict: ((eviction: Eviction) => void) | undefined;

  constructor(limitBytes: number, epochMs: number, onEvict?: (eviction: Eviction) => void) {
    super();
    this.#limit = limitBytes;
    this.#epochMs = epochMs;
    this.#onEvict = onEvict;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  get limitBytes(): number {
    return this.#limit;
  }

  /** The newest write time of an entry evicted (ms), if any: the effective window's start. */
  get evictedUpToMs(): number | undefined {
    return this.#evictedUpToMs;
  }

  /** Entries evicted so far. */
  get evicted(): number {
    return this.#evicted;
  }

  override set(bizId: string, stored: StoredEntry): this {
    // Written again, an entry moves to the end: the order is the order of last writes.
    this.delete(bizId);
    super.set(bizId, stored);
    this.#bytes += entryBytes(bizId, stored);
    if (this.#bytes > this.#limit) this.evict();
    return this;
  }

  override delete(bizId: string): boolean {
    const stored = super.get(bizId);
    if (stored === undefined) return false;
    this.#bytes -= entryBytes(bizId, stored);
    return super.delete(bizId);
  }

  override clear(): void {
    this.#bytes = 0;
    super.clear();
  }

  /**
   * Evicts the oldest entries with nothing open until the estimate is a tenth below the bound;
   * returns what left. Entries with a command open stay even if the bound is then passed.
   */
  evict(): Eviction | undefined {
    const target = this.#limit * LOW_WATER;
    let count = 0;
    let upToMs = this.#evictedUpToMs ?? Number.NEGATIVE_INFINITY;
    for (const [bizId, stored] of super.entries()) {
      if (this.#bytes <= target) break;
      if (isOpen(stored)) continue;
      upToMs = Math.max(upToMs, writtenAtMs(stored, this.#epochMs));
      this.delete(bizId);
      count++;
    }
    if (count === 0) return undefined;
    this.#evictedUpToMs = upToMs;
    this.#evicted += count;
    const eviction = { count, upToMs };
    this.#onEvict?.(eviction);
    return eviction;
  }
}
