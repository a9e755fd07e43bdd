/** The targets, each judged PASS or FAIL from the measured results. */
import type { DrainResult } from './drain-run.js';
import type { ThroughputResult } from './throughput-run.js';

export const TARGETS = {
  commandsPerSecond: 1_500,
  ratio: 15,
  peakRssMb: 200,
  drainTolerance: 1,
  /** Flat memory: the RSS peak of the window's second half exceeds the first half's by less. */
  drainPeakGrowthMb: 10,
} as const;

export interface Verdict {
  readonly target: string;
  readonly measured: string;
  readonly pass: boolean;
}

export function throughputVerdicts(
  bridge: ThroughputResult,
  baseline: ThroughputResult | undefined,
): Verdict[] {
  const verdicts: Verdict[] = [
    {
      target: `bridge >= ${TARGETS.commandsPerSecond} commands/s`,
      measured: `${bridge.commandsPerSecond}/s`,
      pass:
        bridge.completed === bridge.commands &&
        bridge.commandsPerSecond >= TARGETS.commandsPerSecond,
    },
    {
      target: `bridge peak RSS < ${TARGETS.peakRssMb} MB`,
      measured: `${bridge.peakRssMb} MB`,
      pass: bridge.peakRssMb < TARGETS.peakRssMb,
    },
  ];
  if (baseline) {
    const ratio = bridge.commandsPerSecond / Math.max(baseline.commandsPerSecond, 1e-9);
    verdicts.splice(1, 0, {
      target: `bridge >= ${TARGETS.ratio} x baseline throughput`,
      measured: `${ratio.toFixed(1)} x`,
      pass: ratio >= TARGETS.ratio,
    });
  }
  return verdicts;
}

export function drainVerdicts(drain: DrainResult): Verdict[] {
  const { requestsPerSecond: rps } = drain;
  const { firstHalf, secondHalf } = drain.rssMb.peaks;
  const growth = secondHalf - firstHalf;
  return [
    {
      target: `drain at ${rps} +/- ${TARGETS.drainTolerance} commands/s`,
      measured: `${drain.ratePerSecond}/s`,
      pass: Math.abs(drain.ratePerSecond - rps) <= TARGETS.drainTolerance,
    },
    {
      target: 'no throttling error (429 answers, gave-up events)',
      measured: `${drain.throttled} x 429, ${drain.gaveUp} gave up`,
      pass: drain.throttled === 0 && drain.gaveUp === 0,
    },
    {
      target: `flat memory (RSS peak, 2nd half of the window vs 1st, grows < ${TARGETS.drainPeakGrowthMb} MB)`,
      measured: `${firstHalf} -> ${secondHalf} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB)`,
      pass: growth < TARGETS.drainPeakGrowthMb,
    },
  ];
}
