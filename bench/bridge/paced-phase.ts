/**
 * Latency without a queue in front: once the backlog is done, commands are produced at a steady
 * rate below the subject's throughput (in 100 ms ticks, phase `paced`) for a fixed time, and
 * each one's latency is its terminal event's time minus its produce time.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Stage } from './run-context.js';
import { type Percentiles, percentiles, round } from './stats.js';

/** The workload is sized for this rate at most (it bounds the contracts' approval steps). */
export const PACED_RATE_CAP = 2_000;
const TICK_MS = 100;
const STALL_MS = 30_000;

export interface PacedResult {
  readonly ratePerSecond: number;
  readonly seconds: number;
  readonly commands: number;
  readonly completed: number;
  readonly latencyMs: Percentiles;
}

export async function pacedPhase(
  staged: Stage,
  wanted: { ratePerSecond: number; seconds: number },
  alive: () => boolean,
): Promise<PacedResult> {
  const rate = Math.max(1, Math.min(PACED_RATE_CAP, wanted.ratePerSecond));
  const started = performance.now();
  let sent = 0;
  for (;;) {
    const elapsedS = (performance.now() - started) / 1000;
    if (elapsedS >= wanted.seconds || !alive()) break;
    const due = Math.floor(rate * elapsedS) - sent;
    if (due > 0) await staged.writer.send(staged.workload.take(due), 'paced');
    sent += Math.max(0, due);
    await delay(TICK_MS);
  }
  await staged.tally.waitFor('paced', sent, STALL_MS, alive);
  const phase = staged.tally.phase('paced');
  return {
    ratePerSecond: round(rate, 0),
    seconds: wanted.seconds,
    commands: sent,
    completed: phase.eventTimes.length,
    latencyMs: percentiles(phase.latenciesMs),
  };
}
