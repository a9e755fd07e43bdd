/**
 * The group scenario's view of its processes: their shares of the budget, sampled from their
 * /metrics every second and, exactly, from their logs of each change; the steady rate.
 */

import { scrape } from './bridge-metrics.js';
import type { Second } from './platform-rate.js';
import type { Started } from './run-context.js';
import { round } from './stats.js';

/** Shares are read rounded to thousandths: three thirds of 20 make 20.001. */
export const SHARE_ROUNDING = 0.01;
/** The last share of the backlog, left out of the steady rate. */
const TAIL = 0.05;

export interface Member {
  readonly started: Started;
  /** When it was killed (SIGKILL): its share ends then, it logs nothing more. */
  killedAt?: number;
}

export interface ShareSample {
  /** Seconds since the first process was ready. */
  readonly t: number;
  /** Each live process's budget_share_rps. */
  readonly shares: readonly number[];
  readonly sum: number;
  /** The rates in force (rate_limit_rps) summed. */
  readonly inForce: number;
}

export async function sample(members: readonly Member[], start: number): Promise<ShareSample> {
  const live = members.filter((m) => m.killedAt === undefined && m.started.child.running);
  const read = await Promise.all(live.map((m) => readMetrics(m)));
  const shares = read.map((values) => round(values?.get('budget_share_rps') ?? 0, 3));
  const inForce = read.reduce((sum, values) => sum + (values?.get('rate_limit_rps') ?? 0), 0);
  return {
    t: round((Date.now() - start) / 1000, 1),
    shares,
    sum: round(
      shares.reduce((sum, share) => sum + share, 0),
      3,
    ),
    inForce: round(inForce, 2),
  };
}

async function readMetrics(member: Member): Promise<Map<string, number> | undefined> {
  const port = member.started.metrics?.port;
  return port === undefined ? undefined : scrape(port).catch(() => undefined);
}

export async function sumOf(members: readonly Member[], name: string): Promise<number> {
  const read = await Promise.all(members.filter((m) => m.killedAt === undefined).map(readMetrics));
  return read.reduce((sum, values) => sum + (values?.get(name) ?? 0), 0);
}

export function total(seconds: readonly Second[], key: 'requests' | 'throttled'): number {
  return seconds.reduce((sum, s) => sum + s[key], 0);
}

/** When the last TAIL of the backlog began to end (epoch ms). */
export function tailFrom(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * (1 - TAIL))] ?? Number.POSITIVE_INFINITY;
}

/** Mean requests of the seconds whose share sample made up the budget, before the tail. */
export function steadyRate(
  series: readonly Second[],
  samples: readonly ShareSample[],
  start: number,
  tail: number,
): number {
  const budget = Math.max(0, ...samples.map((s) => s.sum));
  const steady = series.filter((second) => {
    const t = second.second + 0.5 - start / 1000;
    const near = samples.find((s) => Math.abs(s.t - t) <= 0.6);
    return (
      second.second * 1000 < tail &&
      near !== undefined &&
      Math.abs(near.sum - budget) < SHARE_ROUNDING
    );
  });
  return round(total(steady, 'requests') / Math.max(1, steady.length));
}

/** Over every member's logged share changes in time order, the largest sum of shares. */
export function largestShareSum(members: readonly Member[]): number {
  const steps = members.flatMap((member) => {
    const changes = member.started.child.kept.map((line) => {
      const { time, shareRps } = JSON.parse(line) as { time: number; shareRps: number };
      return { time, share: shareRps };
    });
    if (member.killedAt !== undefined) changes.push({ time: member.killedAt, share: 0 });
    return changes.map((c, i) => ({ time: c.time, rise: c.share - (changes[i - 1]?.share ?? 0) }));
  });
  steps.sort((a, b) => a.time - b.time || b.rise - a.rise);
  let sum = 0;
  let largest = 0;
  for (const { rise } of steps) {
    sum += rise;
    largest = Math.max(largest, sum);
  }
  return largest;
}
