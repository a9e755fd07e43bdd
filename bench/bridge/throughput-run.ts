/**
 * Scenario 1, for one subject: a preloaded backlog of the throughput mix over 12 partitions,
 * the simulator adding a fixed latency to every call and no rate limit anywhere; the subject
 * started and timed from the moment it consumes until the last command's terminal event. Then
 * the paced phase, for latency without a queue.
 */
import { cpuSeconds, memory } from '../support/proc-stats.js';
import { type BridgeInsight, insight, scrape } from './bridge-metrics.js';
import { type GcResult, gcBetween, gcMark } from './gc-tally.js';
import { PACED_RATE_CAP, type PacedResult, pacedPhase } from './paced-phase.js';
import {
  type OthersCpu,
  othersCpu,
  type RunContext,
  runScenario,
  type Stage,
  type Started,
} from './run-context.js';
import { type Percentiles, percentiles, round } from './stats.js';
import type { Subject, SubjectName } from './subjects.js';
import { THROUGHPUT_MIX } from './workload.js';

/** No terminal event for this long: the subject is stuck, the run ends incomplete. */
const STALL_MS = 60_000;

export interface ThroughputResult {
  readonly subject: SubjectName;
  readonly commands: number;
  /** Commands with a terminal event; less than `commands` only when the run stalled. */
  readonly completed: number;
  /** From the subject consuming to the last terminal event. */
  readonly seconds: number;
  readonly commandsPerSecond: number;
  /** Produce to terminal event, backlog preloaded: mostly time spent queued in the backlog. */
  readonly backlogLatencyMs: Percentiles;
  readonly paced: PacedResult | undefined;
  readonly cpuSecondsPer1000: number;
  /**
   * Cores the simulator, the broker (when ours) and this process kept busy meanwhile, and
   * everything else on the machine (other people's work competes for the same cores).
   */
  readonly othersCores: {
    readonly simulator: number;
    readonly broker: number | undefined;
    readonly bench: number;
    readonly elsewhere: number | undefined;
  };
  readonly peakRssMb: number;
  readonly startupSeconds: number;
  /** From the subject's own metrics over the backlog, when it has them. */
  readonly insight: BridgeInsight | undefined;
  /** Its garbage collections and heap allocation over the backlog (--gc-tally, Node only). */
  readonly gc: GcResult | undefined;
  /** Terminal events by type (first per command) and repeated terminal events. */
  readonly outcomes: Record<string, number>;
  readonly repeatedTerminalEvents: number;
}

export async function measureThroughput(
  run: RunContext,
  subject: Subject,
  commands: number,
): Promise<ThroughputResult> {
  const { options } = run;
  const plan = {
    name: subject.name,
    subject,
    requestsPerSecond: 0,
    backlog: commands,
    capacity: commands + Math.ceil(options.pacedSeconds * PACED_RATE_CAP),
    mix: THROUGHPUT_MIX,
    faults: { latency: { fixedMs: options.latencyMs } },
  };
  return runScenario(run, plan, (staged, started) =>
    measure(run, subject, staged, started, commands),
  );
}

async function measure(
  run: RunContext,
  subject: Subject,
  staged: Stage,
  started: Started,
  commands: number,
): Promise<ThroughputResult> {
  const { child } = started;
  const alive = () => child.running;
  const done = await staged.tally.waitFor('backlog', commands, STALL_MS, alive);
  const cpuAtEnd = (await cpuSeconds(child.pid)) ?? started.cpuAtReady;
  // The second mark also writes the heap profile, with --heap-sample: give it time.
  const gcAtEnd = started.gcAtReady && (await gcMark(child, 120_000));
  const [others, othersAtEnd] = [started.othersCpuAtReady, await othersCpu(run)];
  const metricsAtEnd = started.metrics && (await scrape(started.metrics.port));
  const backlog = staged.tally.phase('backlog');
  const completed = backlog.eventTimes.length;
  const endAt = backlog.eventTimes.reduce((last, at) => Math.max(last, at), started.readyAt);
  const seconds = (endAt - started.readyAt) / 1000;
  const rate = seconds > 0 ? completed / seconds : 0;
  const paced =
    done && run.options.pacedSeconds > 0
      ? await pacedPhase(
          staged,
          { ratePerSecond: rate * run.options.pacedShare, seconds: run.options.pacedSeconds },
          alive,
        )
      : undefined;
  const peak = (await memory(child.pid))?.peakMb ?? 0;
  return {
    subject: subject.name,
    commands,
    completed,
    seconds: round(seconds),
    commandsPerSecond: round(rate, 1),
    backlogLatencyMs: percentiles(backlog.latenciesMs),
    paced,
    cpuSecondsPer1000: round(((cpuAtEnd - started.cpuAtReady) * 1000) / Math.max(1, completed), 3),
    othersCores: coresBetween(others, othersAtEnd, cpuAtEnd - started.cpuAtReady, seconds),
    peakRssMb: round(peak, 1),
    startupSeconds: round(started.startupMs / 1000),
    insight:
      started.metrics && metricsAtEnd && insight(started.metrics.atReady, metricsAtEnd, rate),
    gc: started.gcAtReady && gcAtEnd && gcBetween(started.gcAtReady, gcAtEnd, completed),
    outcomes: Object.fromEntries(staged.tally.outcomes),
    repeatedTerminalEvents: staged.tally.repeats,
  };
}

function coresBetween(start: OthersCpu, end: OthersCpu, subjectCpu: number, seconds: number) {
  const cores = (from: number | undefined, to: number | undefined) =>
    from === undefined || to === undefined ? undefined : round((to - from) / seconds);
  const [simulator, broker, bench] = [
    cores(start.simulator, end.simulator) ?? 0,
    cores(start.broker, end.broker),
    cores(start.bench, end.bench) ?? 0,
  ];
  const machine = cores(start.machine, end.machine);
  const ours = subjectCpu / seconds + simulator + (broker ?? 0) + bench;
  // Without our own broker's figure, "elsewhere" would count it: not shown then.
  const elsewhere = machine === undefined || broker === undefined ? undefined : machine - ours;
  return { simulator, broker, bench, elsewhere: elsewhere && round(Math.max(0, elsewhere)) };
}
