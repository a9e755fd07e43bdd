/**
 * The records of the ledger topic. Two kinds share it, told apart by their key:
 * - a bizId's entry, keyed by the bizId;
 * - an instance's ownership marker for that partition, keyed by OWNERSHIP_KEY_PREFIX + instance.
 *   A bizId never starts with a space (the command schema trims it and the bridge requires the
 *   record key to equal it), so the two key spaces cannot meet, and compaction keeps each
 *   instance's last marker.
 */
import { z } from 'zod';
import type { OutboundRecord } from '../kafka/index.js';
import type { LedgerEntry } from './entry.js';

export const OWNERSHIP_KEY_PREFIX = ' ownership ';

export interface OwnershipMarker {
  readonly kind: 'acquired' | 'released';
  readonly instance: string;
  /** Tells this acquisition from the same instance's earlier ones. */
  readonly nonce: string;
}

export type LedgerRecord =
  | { readonly kind: 'entry'; readonly bizId: string; readonly entry: LedgerEntry }
  | { readonly kind: 'marker'; readonly marker: OwnershipMarker }
  /** A deleted marker; entries are never deleted. */
  | { readonly kind: 'tombstone'; readonly key: string };

const StepRecordSchema = z.object({
  state: z.enum(['started', 'done']),
  result: z.record(z.string(), z.unknown()).optional(),
});
const EntrySchema = z.object({
  contractId: z.string().optional(),
  done: z.array(z.string()),
  open: z.array(z.object({ commandId: z.string(), steps: z.record(z.string(), StepRecordSchema) })),
});
const MarkerSchema = z.object({
  kind: z.enum(['acquired', 'released']),
  instance: z.string(),
  nonce: z.string(),
});

export function entryRecord(
  topic: string,
  partition: number,
  bizId: string,
  entry: LedgerEntry,
): OutboundRecord {
  return { topic, partition, key: bizId, value: JSON.stringify(entry) };
}

export function markerRecord(
  topic: string,
  partition: number,
  marker: OwnershipMarker,
): OutboundRecord {
  return {
    topic,
    partition,
    key: OWNERSHIP_KEY_PREFIX + marker.instance,
    value: JSON.stringify(marker),
  };
}

/** Deletes an instance's marker once its ownership is over, so dead instances leave no trace. */
export function markerTombstone(
  topic: string,
  partition: number,
  instance: string,
): OutboundRecord {
  return { topic, partition, key: OWNERSHIP_KEY_PREFIX + instance, value: null };
}

/** Undefined for a record the bridge did not write (no key, or a value it cannot read). */
export function decodeLedgerRecord(
  key: Buffer | null,
  value: Buffer | null,
): LedgerRecord | undefined {
  if (key === null) return undefined;
  const text = key.toString();
  if (value === null) return { kind: 'tombstone', key: text };
  const json = parseJson(value.toString());
  if (text.startsWith(OWNERSHIP_KEY_PREFIX)) {
    const marker = MarkerSchema.safeParse(json);
    return marker.success ? { kind: 'marker', marker: marker.data } : undefined;
  }
  const entry = EntrySchema.safeParse(json);
  return entry.success ? { kind: 'entry', bizId: text, entry: entry.data } : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
