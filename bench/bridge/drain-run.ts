/**
 * Scenario 2, the rate-limited drain: the simulator answers 429 beyond `--drain-rps` requests a
 * second, the bridge runs with SIGNING_RPS at the same rate, and a backlog of single-call
 * commands waits. The drain rate is measured over a window after a warm-up (the whole backlog
 * would take many minutes: its drain time is extrapolated from the rate), throttling is read
 * from the simulator's call log and the failure events, and the bridge's RSS is sampled every
 * second (its heap read from its metrics at both ends of the window).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { ResourceSampler } from '../support/proc-stats.js';
import { type HeapMb, heapMb, scrape } from './bridge-metrics.js';
import { type RunContext, runScenario, type Stage, type Started } from './run-context.js';
import { round, slope } from './stats.js';
import { BRIDGE } from './subjects.js';
import { SINGLE_CALL_MIX } from './workload.js';

/** Events of the window's last commands are read this long after it closes. */
const EVENT_LAG_MS = 2_000;
const SUCCESS = new Set(['signingbridge.reminder.sent', 'signingbridge.approval.recorded']);

export interface DrainResult {
  readonly backlog: number;
  readonly requestsPerSecond: number;
  readonly warmupSeconds: number;
  readonly windowSeconds: number;
  readonly completedInWindow: number;
  readonly ratePerSecond: number;
  /** The whole backlog's drain time at the measured rate: extrapolated, not observed. */
  readonly extrapolatedDrainMinutes: number;
  /** 429 answers the simulator gave while the bridge ran. */
  readonly throttled: number;
  readonly gaveUp: number;
  /** Terminal events other than success, gave-up included. */
  readonly failures: number;
  readonly rssMb: RssTrend;
  /** The bridge's heap at the start and at the end of the window. */
  readonly heapMb: { readonly start: HeapMb; readonly end: HeapMb } | undefined;
  readonly outcomes: Record<string, number>;
}

export async function measureDrain(run: RunContext): Promise<DrainResult> {
  const { options } = run;
  const plan = {
    name: 'drain',
    subject: BRIDGE,
    requestsPerSecond: options.drainRps,
    backlog: options.drainCommands,
    capacity: options.drainCommands,
    mix: SINGLE_CALL_MIX,
    faults: { latency: { fixedMs: options.latencyMs }, requestsPerSecond: options.drainRps },
  };
  return runScenario(run, plan, async (staged, started) => {
    const sampler = new ResourceSampler(started.child.pid, 1_000);
    try {
      return await observe(run, staged, started, sampler);
    } finally {
      sampler.stop();
    }
  });
}

async function observe(
  run: RunContext,
  staged: Stage,
  started: Started,
  sampler: ResourceSampler,
): Promise<DrainResult> {
  const { options } = run;
  const from = started.readyAt + options.drainWarmupS * 1000;
  const to = from + options.drainSeconds * 1000;
  const heapAt = async (at: number) => {
    await delay(at - Date.now());
    return started.metrics && heapMb(await scrape(started.metrics.port));
  };
  const [heapStart, heapEnd] = [await heapAt(from), await heapAt(to)];
  await delay(EVENT_LAG_MS);
  if (!started.child.running) throw new Error('the bridge exited during the drain');
  const inWindow = staged.tally.phase('backlog').eventTimes.filter((t) => t >= from && t < to);
  const rate = inWindow.length / options.drainSeconds;
  const outcomes = Object.fromEntries(staged.tally.outcomes);
  const failures = Object.entries(outcomes).filter(([type]) => !SUCCESS.has(type));
  return {
    backlog: options.drainCommands,
    requestsPerSecond: options.drainRps,
    warmupSeconds: options.drainWarmupS,
    windowSeconds: options.drainSeconds,
    completedInWindow: inWindow.length,
    ratePerSecond: round(rate),
    extrapolatedDrainMinutes: round(options.drainCommands / Math.max(rate, 1e-9) / 60, 1),
    throttled: await throttledSince(run, started.readyAt),
    gaveUp: outcomes['signingbridge.command.gave-up'] ?? 0,
    failures: failures.reduce((sum, [, n]) => sum + n, 0),
    rssMb: rssTrend(sampler, from, to),
    heapMb: heapStart && heapEnd && { start: heapStart, end: heapEnd },
    outcomes,
  };
}

/** 429 answers in the simulator's call log (it keeps the last 10,000 calls) since `since`. */
async function throttledSince(run: RunContext, since: number): Promise<number> {
  const calls = await run.simulator.admin.calls();
  return calls.filter((c) => c.httpStatus === 429 && Date.parse(c.time) >= since).length;
}

/**
 * RSS is a sawtooth (V8 hands pages back at each full collection, tens of MB at a time), so a
 * line fitted over a window of one or two cycles mostly says where in the cycle it started.
 * What rises when something accumulates is the upper envelope: the peak of the window's second
 * half against the first's.
 */
export interface RssTrend {
  readonly min: number;
  readonly max: number;
  readonly slopePerMinute: number;
  readonly peaks: { readonly firstHalf: number; readonly secondHalf: number };
  /** One reading a second over the window. */
  readonly series: readonly number[];
}

function rssTrend(sampler: ResourceSampler, from: number, to: number): RssTrend {
  const samples = sampler.between(from, to);
  const rss = samples.map((s) => round(s.rssMb, 1));
  const half = Math.floor(rss.length / 2);
  return {
    min: Math.min(...rss),
    max: Math.max(...rss),
    peaks: { firstHalf: Math.max(...rss.slice(0, half)), secondHalf: Math.max(...rss.slice(half)) },
    slopePerMinute: round(slope(samples.map((s) => [(s.at - from) / 60_000, s.rssMb] as const))),
    series: rss,
  };
}
