/**
 * The records of the ledger topic, told apart by their key:
 * - a bizId's entry, keyed by the bizId;
 * - an instance's ownership marker for that partition, keyed by OWNERSHIP_KEY_PREFIX + instance;
 *   while it holds the partition, its marker also says up to which offset of each command topic
 *   it may have records in hand (so that after a crash the next owner knows what to be careful
 *   with);
 * - the partition's careful-run record (CAREFUL_KEY): the record last run alone after a crash,
 *   and how many process deaths it has seen (src/partitions/crash-guard.ts).
 * A bizId never starts with a space (the command schema trims it and the bridge requires the
 * record key to equal it), so the key spaces cannot meet, and compaction keeps the last of each.
 */
import { z } from 'zod';
import type { OutboundRecord } from '../kafka/index.js';
import type { LedgerEntry } from './entry.js';

export const OWNERSHIP_KEY_PREFIX = ' ownership ';
export const CAREFUL_KEY = ' careful';

export interface OwnershipMarker {
  readonly kind: 'acquired' | 'released';
  readonly instance: string;
  /** Tells this acquisition from the same instance's earlier ones. */
  readonly nonce: string;
  /** Per command topic, the highest offset the holder may have in hand (acquired only). */
  readonly inHand?: Readonly<Record<string, string>> | undefined;
}

/** A command record run alone after a crash, and the process deaths it has seen so far. */
export interface CarefulRun {
  readonly instance: string;
  readonly topic: string;
  readonly offset: string;
  readonly deaths: number;
}

export type LedgerRecord =
  | { readonly kind: 'entry'; readonly bizId: string; readonly entry: LedgerEntry }
  | { readonly kind: 'marker'; readonly marker: OwnershipMarker }
  | { readonly kind: 'careful'; readonly run: CarefulRun }
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
  inHand: z.record(z.string(), z.string().regex(/^\d+$/)).optional(),
});
const CarefulSchema = z.object({
  instance: z.string(),
  topic: z.string(),
  offset: z.string().regex(/^\d+$/),
  deaths: z.number().int().min(0),
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

export function carefulRecord(topic: string, partition: number, run: CarefulRun): OutboundRecord {
  return { topic, partition, key: CAREFUL_KEY, value: JSON.stringify(run) };
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
  if (text === CAREFUL_KEY) {
    const run = CarefulSchema.safeParse(json);
    return run.success ? { kind: 'careful', run: run.data } : undefined;
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
