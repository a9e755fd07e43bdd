/**
 * Reading one ledger partition on acquiring it: the entries it holds (the state taken over) and
 * what its ownership markers say. The new owner writes its `acquired` marker, then reads the
 * partition from the start; reading its own marker of this acquisition tells which other
 * instances' last marker is `acquired` (they may still be working on the partition); a `released`
 * marker read after that tells one of them has let go. What to make of those facts (whom to wait
 * for, for how long) is the partition's life, decided in src/partitions.
 */
import type { InboundRecord } from '../kafka/index.js';
import type { LedgerEntry } from './entry.js';
import {
  type CarefulRun,
  decodeLedgerRecord,
  OWNERSHIP_KEY_PREFIX,
  type OwnershipMarker,
} from './ledger-record.js';

export type LedgerFact =
  | { readonly kind: 'own-marker-read'; readonly holders: readonly string[] }
  | { readonly kind: 'holder-released'; readonly instance: string };

export class LedgerReader {
  readonly entries = new Map<string, LedgerEntry>();
  // Each other instance's last marker, in the order read.
  readonly #markers = new Map<string, OwnershipMarker>();
  #careful: CarefulRun | undefined;
  readonly #self: Pick<OwnershipMarker, 'instance' | 'nonce'>;
  #unreadable = 0;
  // Its own marker is rewritten with what it has in hand; only the first reading counts.
  #ownRead = false;

  constructor(self: Pick<OwnershipMarker, 'instance' | 'nonce'>) {
    this.#self = self;
  }

  /** Records the bridge could not read and skipped. */
  get unreadable(): number {
    return this.#unreadable;
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

  /** The partition's last careful-run record, if any. */
  get careful(): CarefulRun | undefined {
    return this.#careful;
  }

  /** Takes one record in; returns what it tells about the handover, if anything. */
  apply(record: InboundRecord): LedgerFact | undefined {
    const decoded = decodeLedgerRecord(record.key, record.value);
    if (decoded === undefined) {
      this.#unreadable++;
    } else if (decoded.kind === 'entry') {
      this.entries.set(decoded.bizId, decoded.entry);
    } else if (decoded.kind === 'tombstone') {
      this.#markers.delete(decoded.key.slice(OWNERSHIP_KEY_PREFIX.length));
    } else if (decoded.kind === 'careful') {
      this.#careful = decoded.run;
    } else {
      return this.#marker(decoded.marker);
    }
    return undefined;
  }

  #marker(marker: OwnershipMarker): LedgerFact | undefined {
    const { instance, kind, nonce } = marker;
    if (instance === this.#self.instance) {
      if (kind !== 'acquired' || nonce !== this.#self.nonce || this.#ownRead) return undefined;
      this.#ownRead = true;
      const holders = [...this.#markers].filter(([, last]) => last.kind === 'acquired');
      return { kind: 'own-marker-read', holders: holders.map(([other]) => other) };
    }
    this.#markers.set(instance, marker);
    return kind === 'released' ? { kind: 'holder-released', instance } : undefined;
  }
}
