import type { OutboundRecord } from '../kafka/index.js';
import { EMPTY_ENTRY, type LedgerEntry } from './entry.js';
import { entryRecord } from './ledger-record.js';

/**
 * The ledger entries of the partitions this instance owns, in memory: the last entry of each
 * bizId handed to Kafka.
 */
export class Ledger {
  readonly topic: string;
  readonly #partitions = new Map<number, Map<string, LedgerEntry>>();

  constructor(topic: string) {
    this.topic = topic;
  }

  /** Takes over a restored partition's entries. */
  adopt(partition: number, entries: Map<string, LedgerEntry>): void {
    this.#partitions.set(partition, entries);
  }

  drop(partition: number): void {
    this.#partitions.delete(partition);
  }

  get(partition: number, bizId: string): LedgerEntry {
    return this.#partitions.get(partition)?.get(bizId) ?? EMPTY_ENTRY;
  }

  /** Call as `recordOf(partition, bizId, entry)` is written; ignored for a dropped partition. */
  set(partition: number, bizId: string, entry: LedgerEntry): void {
    this.#partitions.get(partition)?.set(bizId, entry);
  }

  recordOf(partition: number, bizId: string, entry: LedgerEntry): OutboundRecord {
    return entryRecord(this.topic, partition, bizId, entry);
  }
}
