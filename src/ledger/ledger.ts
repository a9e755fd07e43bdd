/**
 * The ledger entries of the partitions this instance owns, in memory and compact: per bizId one
 * string, the time of its last write and the JSON written (docs/design.md, "The ledger over a
 * deployment's lifetime"). An entry is read back when a command of its bizId uses it; the most
 * recently used are kept parsed. Restoring a partition so costs a string per record, not a parse.
 *
 * Entries live as long as the replay window: expire() deletes (from memory, and from the topic
 * with a tombstone) those with nothing open whose last write is older than the window, and
 * writes again those with a command open, so that everything still needed is newer than the
 * partition's restore checkpoint.
 */
import type { OutboundRecord } from '../kafka/index.js';
import { EMPTY_ENTRY, hasOpenCommands, type LedgerEntry } from './entry.js';
import { EntryStore, type Eviction } from './entry-store.js';
import { decodeEntry, entryRecord, entryTombstone } from './ledger-record.js';

// Times are kept as seconds since this epoch: small integers, which V8 stores without boxing.
const EPOCH_MS = Date.UTC(2024, 0, 1);
const SEPARATOR = '|';
const DEFAULT_PARSED = 10_000;
// How far behind this instance's clock a brand-new record's time may be (producers' clocks).
const FRESH_RECORD_MS = 1_000;

/** One entry as kept: `<seconds since EPOCH>|<JSON written>`. */
export type StoredEntry = string;

export function storedEntry(writtenAtMs: number, json: string): StoredEntry {
  return flat(`${Math.floor((writtenAtMs - EPOCH_MS) / 1_000)}${SEPARATOR}${json}`);
}

/**
 * The string in one piece. V8 keeps a concatenation as a tree of its parts (a cons string) until
 * something reads it by index, which flattens it: for a ledger entry that tree costs some 180
 * bytes more than the flat string, per bizId held (measured: 422 against 243 bytes).
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

export function writtenAt(stored: StoredEntry): number {
  return Number.parseInt(stored, 10) * 1_000 + EPOCH_MS;
}

function jsonOf(stored: StoredEntry): string {
  return stored.slice(stored.indexOf(SEPARATOR) + 1);
}

export interface Upkeep {
  /** Tombstones of the entries that expired (already gone from memory). */
  readonly expired: readonly OutboundRecord[];
  /** The entries with commands open, written again. */
  readonly refreshed: readonly OutboundRecord[];
}

export interface LedgerOptions {
  /** Entries kept parsed, most recently used. */
  readonly parsedMax?: number;
  /** Estimated bytes of one partition's entries at which its oldest ended ones leave. */
  readonly partitionBytes?: number;
  /** Entries of a partition left memory for the bound (entry-store.ts). */
  readonly onEvict?: (partition: number, eviction: Eviction) => void;
}

export class Ledger {
  readonly topic: string;
  readonly #partitions = new Map<number, EntryStore>();
  // The acquisition each held partition's records are written under (ledger-record.ts).
  readonly #acquisitions = new Map<number, string>();
  readonly #partitionBytes: number;
  readonly #onEvict: LedgerOptions['onEvict'];
  // Parsed entries by bizId, least recently used first. Keyed by the bizId alone, the string a
  // command carries (its hash computed once), not by one joined with the partition per lookup;
  // a bizId held in two partitions (the topic grew) keeps one of them here, as a cache may.
  readonly #parsed = new Map<string, ParsedEntry>();
  // The bizId last used: a command reads and writes its entry several times in a row.
  #newest: string | undefined;
  readonly #parsedMax: number;
  #unreadable = 0;

  constructor(topic: string, options: LedgerOptions = {}) {
    this.topic = topic;
    this.#parsedMax = options.parsedMax ?? DEFAULT_PARSED;
    this.#partitionBytes = options.partitionBytes ?? Number.POSITIVE_INFINITY;
    this.#onEvict = options.onEvict;
  }

  /** An empty store for a partition's entries under this ledger's bound (a restore fills it). */
  newStore(partition: number): EntryStore {
    const onEvict = this.#onEvict;
    return new EntryStore(
      this.#partitionBytes,
      EPOCH_MS,
      onEvict && ((eviction) => onEvict(partition, eviction)),
    );
  }

  /** Partitions held. */
  held(): number[] {
    return [...this.#partitions.keys()];
  }

  /**
   * The oldest record time the partition's ledger vouches for: the replay window's start, or
   * later once entries left for the memory bound: just after the newest evicted write, plus a
   * margin for producers' clocks (`skewMs` at most, a quarter of what the partition remembers at
   * most), and never later than a second before `nowMs` (docs/design.md, "The ledger's memory
   * bound").
   */
  vouchedSince(partition: number, windowStartMs: number, skewMs = 0, nowMs = Date.now()): number {
    const memoryStart = this.#memoryStart(partition);
    if (memoryStart === undefined) return windowStartMs;
    // A producer's clock ahead of ours makes a record look younger, so a margin more is refused;
    // scaled to the memory left, so that it cannot push the cutoff past the clock.
    const margin = Math.min(skewMs, Math.floor(Math.max(0, nowMs - memoryStart) / 4));
    // A command arriving now is produced after the writes that left: the cutoff stays behind the
    // clock by a producer's small skew. Only a record read again whose entry was written and
    // evicted within that second could run twice.
    const cutoff = Math.min(memoryStart + margin, nowMs - FRESH_RECORD_MS);
    return Math.max(windowStartMs, cutoff);
  }

  /** Just after the partition's newest evicted write, if its memory bound evicted any. */
  #memoryStart(partition: number): number | undefined {
    const evicted = this.#partitions.get(partition)?.evictedUpToMs;
    // Write times are kept to the second, floored: an entry that left may be up to 999 ms newer.
    return evicted === undefined ? undefined : evicted + 1_000;
  }

  /**
   * Per partition held, how far back from `nowMs` it remembers (ms): the window, or since just
   * after its newest evicted write where that is later.
   */
  windows(nowMs: number, windowMs: number): Map<number, number> {
    const windows = new Map<number, number>();
    for (const partition of this.#partitions.keys()) {
      const since = Math.max(
        nowMs - windowMs,
        this.#memoryStart(partition) ?? Number.NEGATIVE_INFINITY,
      );
      windows.set(partition, Math.max(0, nowMs - since));
    }
    return windows;
  }

  /** Estimated bytes of the entries held, of one partition or of all. */
  bytes(partition?: number): number {
    if (partition !== undefined) return this.#partitions.get(partition)?.bytes ?? 0;
    let total = 0;
    for (const entries of this.#partitions.values()) total += entries.bytes;
    return total;
  }

  /** Entries of owned partitions that could not be read when used (counted once each). */
  get unreadable(): number {
    return this.#unreadable;
  }

  /** Entries held, of one partition or of all. */
  size(partition?: number): number {
    if (partition !== undefined) return this.#partitions.get(partition)?.size ?? 0;
    let total = 0;
    for (const entries of this.#partitions.values()) total += entries.size;
    return total;
  }

  /** Takes over a restored partition's entries, for the acquisition that restored them. */
  adopt(partition: number, entries: Map<string, StoredEntry>, acquisition: string): void {
    this.#forgetParsed(partition);
    const store = entries instanceof EntryStore ? entries : this.newStore(partition);
    if (store !== entries) for (const [bizId, stored] of entries) store.set(bizId, stored);
    this.#partitions.set(partition, store);
    this.#acquisitions.set(partition, acquisition);
  }

  drop(partition: number): void {
    this.#partitions.delete(partition);
    this.#acquisitions.delete(partition);
    this.#forgetParsed(partition);
  }

  get(partition: number, bizId: string): LedgerEntry {
    const parsed = this.#parsed.get(bizId);
    if (parsed?.partition === partition) {
      this.#touch(bizId, parsed);
      return parsed.entry;
    }
    const entries = this.#partitions.get(partition);
    const stored = entries?.get(bizId);
    if (stored === undefined) return EMPTY_ENTRY;
    const entry = decodeEntry(jsonOf(stored));
    if (entry === undefined) {
      this.#unreadable++;
      entries?.delete(bizId);
      return EMPTY_ENTRY;
    }
    this.#remember(partition, bizId, entry);
    return entry;
  }

  /**
   * The entry becomes the bizId's; returns its record to write. Ignored in memory for a
   * partition not held (the write is refused then anyway).
   */
  write(partition: number, bizId: string, entry: LedgerEntry, nowMs = Date.now()): OutboundRecord {
    const acquisition = this.#acquisitions.get(partition);
    const record = entryRecord(this.topic, partition, bizId, entry, acquisition);
    const entries = this.#partitions.get(partition);
    if (entries) {
      entries.set(bizId, storedEntry(nowMs, record.value as string));
      this.#remember(partition, bizId, entry);
    }
    return record;
  }

  /**
   * The partition's entries last written before `beforeMs`: those with nothing open leave
   * memory (their tombstones returned), those with a command open are written again (their
   * records returned), so that nothing still needed stays older than the window.
   */
  expire(partition: number, beforeMs: number, nowMs = Date.now()): Upkeep {
    const entries = this.#partitions.get(partition);
    const expired: OutboundRecord[] = [];
    const refreshed: OutboundRecord[] = [];
    for (const [bizId, stored] of entries ?? []) {
      if (writtenAt(stored) >= beforeMs) continue;
      const entry = decodeEntry(jsonOf(stored));
      if (entry && hasOpenCommands(entry)) {
        refreshed.push(this.write(partition, bizId, entry, nowMs));
      } else {
        entries?.delete(bizId);
        if (this.#parsed.get(bizId)?.partition === partition) this.#parsed.delete(bizId);
        expired.push(
          entryTombstone(this.topic, partition, bizId, this.#acquisitions.get(partition)),
        );
      }
    }
    return { expired, refreshed };
  }

  #remember(partition: number, bizId: string, entry: LedgerEntry): void {
    this.#touch(bizId, { partition, entry });
    if (this.#parsed.size <= this.#parsedMax) return;
    const [oldest] = this.#parsed.keys();
    if (oldest !== undefined) this.#parsed.delete(oldest);
  }

  /** The bizId's parsed entry becomes the most recently used. */
  #touch(bizId: string, parsed: ParsedEntry): void {
    // The newest stays last when set again: only another bizId is moved to the end.
    if (bizId !== this.#newest) this.#parsed.delete(bizId);
    this.#parsed.set(bizId, parsed);
    this.#newest = bizId;
  }

  #forgetParsed(partition: number): void {
    for (const [bizId, parsed] of this.#parsed) {
      if (parsed.partition === partition) this.#parsed.delete(bizId);
    }
  }
}

interface ParsedEntry {
  readonly partition: number;
  readonly entry: LedgerEntry;
}
