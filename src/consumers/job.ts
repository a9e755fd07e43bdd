import { bytesExcerpt, ID_EXCERPT_MAX_CHARS } from '../events/index.js';
import type { InboundRecord } from '../kafka/index.js';
import type { PartitionTask } from '../partitions/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import { type DecodedCommand, utf8 } from './command-decoding.js';
import type { RunVerdict } from './key-scheduler.js';
import { recordBytes } from './record-limits.js';
import type { WritePass } from './refused-writes.js';
import { NO_HISTORY, type RunHistory } from './retry-decision.js';
import type { CommandObservation } from './settings.js';

/** One command record from fetch to its end, across all of its runs. */
export interface Job {
  readonly record: InboundRecord;
  /** The acquisition of its partition it was taken under: its runs start and write through it. */
  readonly task: PartitionTask;
  readonly type: CommandType;
  /**
   * The record key as text: the bizId of a valid command, and the scheduling key. A key over
   * the input limit (its record is rejected) stands as a bounded excerpt.
   */
  readonly key: string;
  /** What the record holds in memory, counted against MAX_PENDING_BYTES. */
  readonly bytes: number;
  /**
   * The partition its key belongs to, when it was found on another (a producer partitioning by
   * another hash than murmur2): it is forwarded there instead of run here.
   */
  forwardTo?: number;
  /** Resolves true once it may run (its partition's marker says it may be in hand). */
  admitted?: Promise<boolean> | undefined;
  decoded?: DecodedCommand;
  /** Younger than its ledger vouches for when first checked (record-gates.ts, expiry). */
  vouched?: true;
  history: RunHistory;
  /** Runs of its handler so far (none for a rejected record or a replay). */
  runs: number;
  firstRunAt?: number;
  /**
   * Its ending (or rejection), decided and refused by Kafka until fixed: what its next run does
   * instead of anything else, writing it again (refused-writes.ts). Its offset stays unfinished.
   */
  unwritten?: ((pass: WritePass, handedOver: () => void) => Promise<RunVerdict>) | undefined;
  /** Follows it from its first run to its end (its trace span); absent when nobody does. */
  observation?: CommandObservation | undefined;
}

export function newJob(
  fetched: InboundRecord,
  task: PartitionTask,
  type: CommandType,
  maxKeyBytes: number,
): Job {
  const record = ownCopy(fetched);
  return {
    record,
    task,
    type,
    key: keyText(record.key, maxKeyBytes),
    bytes: recordBytes(record),
    history: NO_HISTORY,
    runs: 0,
  };
}

/**
 * The record key as text. A key over its limit or not UTF-8 (its record is rejected) stands as an
 * excerpt marked with a hash of every byte: two different keys never share a scheduling key or a
 * ledger entry.
 */
export function keyText(key: Buffer | null, maxKeyBytes: number): string {
  if (key === null) return '';
  const text = key.length <= maxKeyBytes ? utf8(key) : undefined;
  return text ?? bytesExcerpt(key, ID_EXCERPT_MAX_CHARS);
}

/**
 * The record with its own copies of key, value and headers: as fetched they are views into the
 * whole fetch response, which a record kept in hand (waiting to retry, say) would keep alive.
 * Copied, what is in hand is what MAX_PENDING_BYTES counts.
 */
function ownCopy(record: InboundRecord): InboundRecord {
  const headers = Object.entries(record.headers).map(([name, value]) => [
    name,
    Array.isArray(value) ? value.map(copied) : copied(value),
  ]);
  const { key, value } = record;
  return {
    ...record,
    key: copied(key),
    value: copied(value),
    headers: Object.fromEntries(headers),
  };
}

function copied<T>(bytes: T): T {
  return (Buffer.isBuffer(bytes) ? Buffer.from(bytes) : bytes) as T;
}

/** Its offset is finished (it may be committed). */
export function finishJob(job: Job): void {
  job.task.finish(job.record.topic, job.record.offset);
}
