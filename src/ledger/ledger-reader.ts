/**
 * Reading one ledger partition on acquiring it: the entries it holds (the state taken over) and
 * what its ownership markers say. The new owner writes its `acquired` marker, then reads the
 * partition from the start; reading its own marker of this acquisition tells which other
 * instances' last marker is `acquired` (they may still be working on the partition); a `released`
 * marker read after that tells one of them has let go. What to make of those facts (whom to wait
 * for, for how long) is the partition's life, decided in src/partitions.
 *
 * Once an acquisition's `active` marker is read, the records another acquisition wrote after it
 * are stale: the late writes of an instance that had lost the partition (its lease ended while a
 * write was on its way). They are skipped and counted, so the state taken over is the owner's.
 */
import { headerText, type InboundRecord } from '../kafka/index.js';
import { EntryStore } from './entry-store.js';
import { type StoredEntry, storedEntry } from './ledger.js';
import {
  ACQUISITION_HEADER,
  type CarefulRun,
  decodeControlRecord,
  isControlKey,
  OWNERSHIP_KEY_PREFIX,
  type OwnershipMarker,
} from './ledger-record.js';

export type LedgerFact =
  | { readonly kind: 'own-marker-read'; readonly holders: readonly string[] }
  | { readonly kind: 'holder-released'; readonly instance: string }
  /** This acquisition's `active` marker: everything written before it has been read. */
  | { readonly kind: 'own-active-read' };

export class LedgerReader {
  /**
   * Each bizId's last entry, as the ledger keeps it: read when used, not now. Under the ledger's
   * memory bound (Ledger.newStore), so a restore evicts as it reads rather than after.
   */
  readonly entries: Map<string, StoredEntry>;
  // Each other instance's last marker, in the order read.
  readonly #markers = new Map<string, OwnershipMarker>();
  #careful: CarefulRun | undefined;
  /** Per command topic, the last record forwarded from this partition (see forwardedRecord). */
  readonly forwarded = new Map<string, bigint>();
  /** Per command topic, the extent of its log the partition's last logs record names (logsRecord). */
  readonly logs = new Map<string, { readonly start: bigint; readonly end: bigint }>();
  readonly #self: Pick<OwnershipMarker, 'instance' | 'nonce'>;
  #unreadable = 0;
  #stale = 0;
  // The acquisition whose `active` marker was read last: the partition's owner from there on.
  #owner: string | undefined;
  // Its own marker is rewritten with what it has in hand; only the first reading counts.
  #ownRead = false;
  #ownActiveRead = false;

  constructor(
    self: Pick<OwnershipMarker, 'instance' | 'nonce'>,
    entries: Map<string, StoredEntry> = new EntryStore(Number.POSITIVE_INFINITY, 0),
  ) {
    this.#self = self;
    this.entries = entries;
  }

  /** Records the bridge could not read and skipped. */
  get unreadable(): number {
    return this.#unreadable;
  }

  /** Records another acquisition wrote after the owner's took over, skipped. */
  get stale(): number {
    return this.#stale;
  }

  /** Other instances whose markers remain: their ownership is over once this one takes over. */
  otherInstances(): string[] {
    return [...this.#markers.keys()];
  }

  /** What the instances may have had in hand, per command topic: the highest offset of any. */
  inHand(instances: readonly string[]): Map<string, bigint> {
    const highest = new Map<string, bigint>();
    for (const instance of instances) {
      for (const [topic, offset] of Object.entries(this.#markers.get(instance)?.inHand ?? {})) {
        const value = BigInt(offset);
        if (value > (highest.get(topic) ?? -1n)) highest.set(topic, value);
      }
    }
    return highest;
  }

  /** Whether one of the instances was recovering what a crashed holder had in hand. */
  recovering(instances: readonly string[]): boolean {
    return instances.some((i) => Object.keys(this.#markers.get(i)?.recovering ?? {}).length > 0);
  }

  /** The partition's last careful-run record, if any. */
  get careful(): CarefulRun | undefined {
    return this.#careful;
  }

  /** Takes one record in; returns what it tells about the handover, if anything. */
  apply(record: InboundRecord): LedgerFact | undefined {
    if (record.key === null) {
      this.#unreadable++;
      return undefined;
    }
    const key = record.key.toString();
    if (!key.startsWith(OWNERSHIP_KEY_PREFIX) && this.#isStale(record)) {
      this.#stale++;
      return undefined;
    }
    if (!isControlKey(key)) {
      if (record.value === null) this.entries.delete(key);
      else this.entries.set(key, storedEntry(Number(record.timestamp), record.value.toString()));
      return undefined;
    }
    const decoded = decodeControlRecord(key, record.value);
    if (decoded === undefined) {
      this.#unreadable++;
    } else if (decoded.kind === 'tombstone') {
      this.#markers.delete(decoded.key.slice(OWNERSHIP_KEY_PREFIX.length));
    } else if (decoded.kind === 'careful') {
      this.#careful = decoded.run;
    } else if (decoded.kind === 'forwarded') {
      // Each is written whole: the last one read is the mark, as compaction leaves it.
      this.forwarded.clear();
      for (const [topic, offset] of Object.entries(decoded.upTo)) {
        this.forwarded.set(topic, BigInt(offset));
      }
    } else if (decoded.kind === 'logs') {
      this.logs.clear();
      for (const [topic, { start, end }] of Object.entries(decoded.logs)) {
        this.logs.set(topic, { start: BigInt(start), end: BigInt(end) });
      }
    } else {
      return this.#marker(decoded.marker);
    }
    return undefined;
  }

  /** Written under another acquisition than the owner's, after the owner took over. */
  #isStale(record: InboundRecord): boolean {
    if (this.#owner === undefined) return false;
    const by = headerText(record.headers, ACQUISITION_HEADER);
    return by !== undefined && by !== this.#owner;
  }

  #ownActive(): LedgerFact | undefined {
    if (this.#ownActiveRead) return undefined;
    this.#ownActiveRead = true;
    return { kind: 'own-active-read' };
  }

  #marker(marker: OwnershipMarker): LedgerFact | undefined {
    const { instance, kind, nonce } = marker;
    if (marker.active) this.#owner = nonce;
    if (instance === this.#self.instance) {
      if (kind !== 'acquired' || nonce !== this.#self.nonce) return undefined;
      if (marker.active) return this.#ownActive();
      if (this.#ownRead) return undefined;
      this.#ownRead = true;
      const holders = [...this.#markers].filter(([, last]) => last.kind === 'acquired');
      return { kind: 'own-marker-read', holders: holders.map(([other]) => other) };
    }
    this.#markers.set(instance, marker);
    return kind === 'released' ? { kind: 'holder-released', instance } : undefined;
  }
}
