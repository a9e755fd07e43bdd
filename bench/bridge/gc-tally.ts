/**
 * The garbage collections of a Node subject over the backlog (--gc-tally): the subject preloads
 * bench/support/gc-tally.mjs, which answers SIGUSR2 with its totals since it started; the
 * benchmark asks when the subject consumes and when the backlog's last event is in, and keeps
 * the difference, per command.
 */
import type { NodeChild } from '../support/child-process.js';
import { round } from './stats.js';
import { GC_TALLY_LINE } from './subjects.js';

export interface GcTotals {
  /** Collections by V8's type name (Scavenge, MarkSweepCompact, ...). */
  readonly collections: Readonly<Record<string, number>>;
  readonly pauseMs: number;
  /** Bytes the JavaScript heap allocated (buffers' backing stores excluded). */
  readonly allocatedBytes: number;
}

export interface GcResult {
  readonly collections: Readonly<Record<string, number>>;
  readonly collectionsPer1000Commands: number;
  /** Time in collection pauses (main thread), per 1,000 commands. */
  readonly pauseMsPer1000Commands: number;
  readonly allocatedMb: number;
  readonly allocatedKbPerCommand: number;
}

/** The subject's totals now; undefined when it does not answer within the timeout. */
export async function gcMark(child: NodeChild, timeoutMs = 10_000): Promise<GcTotals | undefined> {
  const answer = await child.ask('SIGUSR2', GC_TALLY_LINE, timeoutMs);
  return answer && (JSON.parse(answer[1] ?? '{}') as GcTotals);
}

export function gcBetween(start: GcTotals, end: GcTotals, commands: number): GcResult {
  const per = Math.max(1, commands);
  const collections: Record<string, number> = {};
  for (const [type, count] of Object.entries(end.collections)) {
    const n = count - (start.collections[type] ?? 0);
    if (n > 0) collections[type] = n;
  }
  const count = Object.values(collections).reduce((sum, n) => sum + n, 0);
  const allocated = end.allocatedBytes - start.allocatedBytes;
  return {
    collections,
    collectionsPer1000Commands: round((count * 1000) / per),
    pauseMsPer1000Commands: round(((end.pauseMs - start.pauseMs) * 1000) / per),
    allocatedMb: round(allocated / 2 ** 20, 1),
    allocatedKbPerCommand: round(allocated / 1024 / per, 1),
  };
}
