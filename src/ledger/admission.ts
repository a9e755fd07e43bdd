/**
 * Whether a command record runs: one decision, from its bizId's ledger entry and what the
 * partition's task knows of the record (docs/design.md, "Processing one record").
 *
 * - `duplicate`: this very record ended before (replayed after a crash or a rebalance: the
 *   entry lists its position), or its commandId was spent by a final ending of the same content.
 * - `reused`: its commandId was used by a command with other content (another fingerprint).
 * - `expired`: the ledger knows nothing of its commandId, and the record is older than the
 *   partition's ledger vouches for: it may have run, and its entry expired since.
 * - `run`: `new` (the ledger knows nothing of it), `resumed` (under way: it has steps recorded,
 *   some perhaps in doubt, a step `started` and never `done`), or `resent` (it ended without a
 *   final verdict and was sent again: its calls are made again, resuming after the steps done).
 *
 * A record that is no command is rejected once: `rejectedBefore` says whether this very record
 * already was. The entry's marks for records name them by position and time: `endedToken` and
 * `rejectionToken`, which the publisher writes. The time tells a record from one a topic of the
 * same name, deleted and created again, holds at the same offset (docs/design.md, "Offsets and
 * topics an operator changes"); a mark written before it was kept names the position alone, and
 * is still honoured.
 */
import type { CommandProgress } from '../schemas/messages/index.js';
import { isDone, type LedgerEntry, type PriorUse, priorUse, progressOf } from './entry.js';

/** A command record, as the ledger tells it from others of its bizId. */
export interface RecordPosition {
  readonly topic: string;
  readonly offset: string;
  /** Its Kafka timestamp (ms since the epoch, as fetched; -1 when it has none). */
  readonly timestamp: string;
}

export interface AdmissionFacts {
  readonly commandId: string;
  /** Its command's fingerprint (fingerprint.ts). */
  readonly fingerprint: string;
  readonly record: RecordPosition;
  /** When the record was produced (ms since the epoch); undefined when it does not say. */
  readonly producedAt: number | undefined;
  /**
   * The oldest record time the partition's ledger vouches for (Ledger.vouchedSince); undefined
   * when the record was vouched for already (this instance holds it and runs it again).
   */
  readonly vouchedSince: number | undefined;
}

export type Admission =
  | {
      readonly kind: 'run';
      readonly as: 'new' | 'resumed' | 'resent';
      readonly progress: CommandProgress;
      /** Steps recorded `started` and never `done`: each may have reached the platform. */
      readonly inDoubt: readonly string[];
    }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'reused'; readonly first: PriorUse & { readonly fingerprint: string } }
  | { readonly kind: 'expired'; readonly producedAt: number; readonly vouchedSince: number };

export function admission(entry: LedgerEntry, facts: AdmissionFacts): Admission {
  const { commandId, fingerprint, record, producedAt, vouchedSince } = facts;
  if (marked(entry, 'ended', record)) return { kind: 'duplicate' };
  const first = priorUse(entry, commandId);
  if (first?.fingerprint !== undefined && first.fingerprint !== fingerprint) {
    return { kind: 'reused', first: { ...first, fingerprint: first.fingerprint } };
  }
  // A use recorded before fingerprints were kept is taken for the same content.
  if (first?.state === 'ended-final') return { kind: 'duplicate' };
  if (
    first === undefined &&
    vouchedSince !== undefined &&
    producedAt !== undefined &&
    producedAt < vouchedSince
  ) {
    return { kind: 'expired', producedAt, vouchedSince };
  }
  const progress = progressOf(entry, commandId);
  const inDoubt = Object.entries(progress.steps)
    .filter(([, step]) => step.state === 'started')
    .map(([name]) => name);
  const as = first === undefined ? 'new' : progress.resent ? 'resent' : 'resumed';
  return { kind: 'run', as, progress, inDoubt };
}

/** Whether this very record was already rejected (a replay after a crash or a rebalance). */
export function rejectedBefore(entry: LedgerEntry, record: RecordPosition): boolean {
  return marked(entry, 'rejected', record);
}

/**
 * Stands, in its bizId's ended commands, for a record whose command ended without a final
 * verdict: `ended@<topic>/<offset>/<timestamp>`.
 */
export function endedToken(record: RecordPosition): string {
  return token('ended', record);
}

/** Stands, in its bizId's ended commands, for a rejected record: `rejected@<topic>/<offset>/<timestamp>`. */
export function rejectionToken(record: RecordPosition): string {
  return token('rejected', record);
}

type Mark = 'ended' | 'rejected';

function token(mark: Mark, { topic, offset, timestamp }: RecordPosition): string {
  return `${mark}@${topic}/${offset}/${timestamp}`;
}

/** The record's mark, or one written before marks named the time (`<mark>@<topic>/<offset>`). */
function marked(entry: LedgerEntry, mark: Mark, record: RecordPosition): boolean {
  const position = `${mark}@${record.topic}/${record.offset}`;
  return isDone(entry, token(mark, record)) || isDone(entry, position);
}
