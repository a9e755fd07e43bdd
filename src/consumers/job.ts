import type { InboundRecord } from '../kafka/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import type { DecodedCommand } from './command-decoding.js';
import { NO_HISTORY, type RunHistory } from './retry-decision.js';

/** One command record from fetch to its end, across all of its runs. */
export interface Job {
  readonly record: InboundRecord;
  readonly type: CommandType;
  /** The record key as text: the bizId of a valid command, and the scheduling key. */
  readonly key: string;
  decoded?: DecodedCommand;
  history: RunHistory;
  /** Runs of its handler so far (none for a rejected record or a replay). */
  runs: number;
  firstRunAt?: number;
}

export function newJob(record: InboundRecord, type: CommandType): Job {
  return { record, type, key: record.key?.toString() ?? '', history: NO_HISTORY, runs: 0 };
}
