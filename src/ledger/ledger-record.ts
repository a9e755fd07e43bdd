/**
 * The records of the ledger topic (shapes: src/schemas/messages/ledger.ts), told apart by key:
 * - a bizId's entry, keyed by the bizId (a tombstone when the entry expired);
 * - an instance's ownership marker for that partition, keyed by OWNERSHIP_KEY_PREFIX + instance;
 *   while it holds the partition, its marker also says up to which offset of each command topic
 *   it may have records in hand (so that after a crash the next owner knows what to be careful
 *   with);
 * - the partition's careful-run record (CAREFUL_KEY): the record last run alone after a crash,
 *   and how many process deaths it has seen (src/partitions/crash-guard.ts);
 * - the partition's forwarded mark (FORWARDED_KEY): up to which offset of each command topic its
 *   records keyed for another partition were forwarded there (src/consumers/forwarding.ts);
 * - the partition's command logs (LOGS_KEY): how far it has seen each command topic's log, so a
 *   topic deleted and created again is told from the one those offsets were of
 *   (src/partitions/command-logs.ts).
 * A bizId never starts with a space (the command schema trims it and the bridge requires the
 * record key to equal it), so the key spaces cannot meet, and compaction keeps the last of each.
 *
 * Every record but a marker carries the acquisition it was written under in its
 * ACQUISITION_HEADER (a marker names its own): once an acquisition's `active` marker is in the
 * partition, a reader ignores the records of any other written after it (ledger-reader.ts), so
 * the late write of an instance that lost the partition cannot overwrite its new owner's.
 */
import type { OutboundRecord } from '../kafka/index.js';
import {
  CarefulRun,
  CommandLogs,
  ForwardedUpTo,
  LedgerEntry,
  OwnershipMarker,
} from '../schemas/messages/index.js';

export type { CarefulRun, CommandLogs, OwnershipMarker } from '../schemas/messages/index.js';

export const OWNERSHIP_KEY_PREFIX = ' ownership ';
/** The nonce of the acquisition a record was written under (its marker's). */
export const ACQUISITION_HEADER = 'sb-acquisition';
export const CAREFUL_KEY = ' careful';
export const FORWARDED_KEY = ' forwarded';
export const LOGS_KEY = ' logs';

/** A record of the bridge's own keys (not an entry): read when a partition is restored. */
export type ControlRecord =
  | { readonly kind: 'marker'; readonly marker: OwnershipMarker }
  | { readonly kind: 'careful'; readonly run: CarefulRun }
  | { readonly kind: 'forwarded'; readonly upTo: ForwardedUpTo }
  | { readonly kind: 'logs'; readonly logs: CommandLogs }
  /** A deleted marker or careful-run record. */
  | { readonly kind: 'tombstone'; readonly key: string };

export function entryRecord(
  topic: string,
  partition: number,
  bizId: string,
  entry: LedgerEntry,
  acquisition: string | undefined,
): OutboundRecord {
  return { topic, partition, key: bizId, value: JSON.stringify(entry), ...by(acquisition) };
}

/**
 * Deletes an expired entry (docs/design.md, "The ledger over a deployment's lifetime"); an
 * operator's tool (topics grow) writes one under no acquisition.
 */
export function entryTombstone(
  topic: string,
  partition: number,
  bizId: string,
  acquisition?: string,
): OutboundRecord {
  return { topic, partition, key: bizId, value: null, ...by(acquisition) };
}

/** The headers naming the acquisition a record is written under. */
function by(acquisition: string | undefined): { headers?: Record<string, string> } {
  return acquisition === undefined ? {} : { headers: { [ACQUISITION_HEADER]: acquisition } };
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

export function carefulRecord(
  topic: string,
  partition: number,
  run: CarefulRun,
  acquisition: string,
): OutboundRecord {
  return { topic, partition, key: CAREFUL_KEY, value: JSON.stringify(run), ...by(acquisition) };
}

export function forwardedRecord(
  topic: string,
  partition: number,
  upTo: ReadonlyMap<string, bigint>,
  acquisition: string | undefined,
): OutboundRecord {
  const value = Object.fromEntries([...upTo].map(([t, offset]) => [t, offset.toString()]));
  return { topic, partition, key: FORWARDED_KEY, value: JSON.stringify(value), ...by(acquisition) };
}

export function logsRecord(
  topic: string,
  partition: number,
  logs: CommandLogs,
  acquisition: string | undefined,
): OutboundRecord {
  return { topic, partition, key: LOGS_KEY, value: JSON.stringify(logs), ...by(acquisition) };
}

/** Deletes an instance's marker once its ownership is over, so dead instances leave no trace. */
export function markerTombstone(
  topic: string,
  partition: number,
  instance: string,
): OutboundRecord {
  return { topic, partition, key: OWNERSHIP_KEY_PREFIX + instance, value: null };
}

/** Whether a key is one of the bridge's own (a marker or careful-run record), not a bizId. */
export function isControlKey(key: string): boolean {
  return key.startsWith(' ');
}

/** Undefined for a record the bridge did not write, or a value it cannot read. */
export function decodeControlRecord(key: string, value: Buffer | null): ControlRecord | undefined {
  if (value === null) return { kind: 'tombstone', key };
  const json = parseJson(value.toString());
  if (key.startsWith(OWNERSHIP_KEY_PREFIX)) {
    const marker = OwnershipMarker.safeParse(json);
    return marker.success ? { kind: 'marker', marker: marker.data } : undefined;
  }
  if (key === CAREFUL_KEY) {
    const run = CarefulRun.safeParse(json);
    return run.success ? { kind: 'careful', run: run.data } : undefined;
  }
  if (key === FORWARDED_KEY) {
    const upTo = ForwardedUpTo.safeParse(json);
    return upTo.success ? { kind: 'forwarded', upTo: upTo.data } : undefined;
  }
  if (key === LOGS_KEY) {
    const logs = CommandLogs.safeParse(json);
    return logs.success ? { kind: 'logs', logs: logs.data } : undefined;
  }
  return undefined;
}

/** An entry's JSON as written; undefined when it is not one. */
export function decodeEntry(text: string): LedgerEntry | undefined {
  const entry = LedgerEntry.safeParse(parseJson(text));
  return entry.success ? entry.data : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
