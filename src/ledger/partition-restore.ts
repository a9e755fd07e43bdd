/**
 * Restoring one ledger partition on acquiring it, and the handover from its previous owner.
 *
 * The new owner writes its `acquired` marker, then reads the partition from the beginning.
 * Everything before its own marker is the state it takes over; an instance whose last marker
 * there is `acquired` may still be finishing work on the partition. If that instance is still a
 * member of the group (it is alive and learning of the rebalance), the new owner keeps reading
 * until that instance's `released` marker; everything it wrote before it is then restored too.
 * An instance no longer in the group crashed or left: nothing to wait for.
 */
import type { InboundRecord } from '../kafka/index.js';
import type { LedgerEntry } from './entry.js';
import { decodeLedgerRecord, OWNERSHIP_KEY_PREFIX, type OwnershipMarker } from './ledger-record.js';

export type RestoreState = 'restoring' | 'awaiting-release' | 'done';

export class PartitionRestore {
  readonly entries = new Map<string, LedgerEntry>();
  // Each instance's last marker kind, in the order read.
  readonly #markers = new Map<string, OwnershipMarker['kind']>();
  readonly #self: OwnershipMarker;
  readonly #live: ReadonlySet<string> | undefined;
  #waitingFor = new Set<string>();
  #state: RestoreState = 'restoring';
  #unreadable = 0;

  /**
   * `live`: the group's member instances when the partition was acquired; undefined when that
   * could not be learnt, and then every holder is waited for.
   */
  constructor(self: OwnershipMarker, live: ReadonlySet<string> | undefined) {
    this.#self = self;
    this.#live = live;
  }

  get state(): RestoreState {
    return this.#state;
  }

  /** Instances whose `released` marker this owner still waits for. */
  get waitingFor(): ReadonlySet<string> {
    return this.#waitingFor;
  }

  /** Records the bridge could not read and skipped. */
  get unreadable(): number {
    return this.#unreadable;
  }

  /** Other instances whose markers remain: their ownership is over once this one is done. */
  otherInstances(): string[] {
    return [...this.#markers.keys()].filter((instance) => instance !== this.#self.instance);
  }

  apply(record: InboundRecord): void {
    if (this.#state === 'done') return;
    const decoded = decodeLedgerRecord(record.key, record.value);
    if (decoded === undefined) {
      this.#unreadable++;
    } else if (decoded.kind === 'entry') {
      this.entries.set(decoded.bizId, decoded.entry);
    } else if (decoded.kind === 'tombstone') {
      this.#markers.delete(decoded.key.slice(OWNERSHIP_KEY_PREFIX.length));
    } else {
      this.#applyMarker(decoded.marker);
    }
  }

  /** Gives up waiting (the handover timed out): the previous owner is presumed gone. */
  stopWaiting(): void {
    if (this.#state === 'awaiting-release') this.#state = 'done';
  }

  #applyMarker(marker: OwnershipMarker): void {
    const { instance, kind, nonce } = marker;
    if (instance === this.#self.instance) {
      if (kind === 'acquired' && nonce === this.#self.nonce) this.#ownMarkerRead();
      return;
    }
    this.#markers.set(instance, kind);
    if (kind === 'released' && this.#waitingFor.delete(instance) && this.#waitingFor.size === 0) {
      this.#state = 'done';
    }
  }

  #ownMarkerRead(): void {
    const holders = [...this.#markers].filter(([, kind]) => kind === 'acquired');
    this.#waitingFor = new Set(
      holders.map(([instance]) => instance).filter((instance) => this.#live?.has(instance) ?? true),
    );
    this.#state = this.#waitingFor.size === 0 ? 'done' : 'awaiting-release';
  }
}
