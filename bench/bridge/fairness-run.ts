/**
 * The fairness scenario: the simulator refuses beyond `--drain-rps` requests a second and the
 * bridge runs with SIGNING_RPS at that rate (the service's other defaults: MAX_IN_FLIGHT 256,
 * MAX_PENDING 2000); a batch job's reminders are queued over a few hundred signing contracts;
 * then, after a warm-up, a person's create-contract (draft, template document, initiation: three
 * calls) arrives every two seconds for a minute. Run twice: with the default priority classes,
 * and with classes off (every type in one class), beside it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { scrape } from './bridge-metrics.js';
import { busiestWindow, PlatformRate } from './platform-rate.js';
import { type RunContext, runScenario, type Stage, type Started } from './run-context.js';
import { type Percentiles, percentiles, round } from './stats.js';
import { BRIDGE } from './subjects.js';
import { createContract } from './workload.js';

/** The service's own default, which a new user runs with. */
const MAX_IN_FLIGHT = 256;
/** Every command type in one class: no priorities, as before classes existed. */
const CLASSES_OFF: Readonly<Record<string, string>> = { COMMAND_CLASSES: 'remind=interactive' };
/** How long the interactive commands may take to end, after the last was sent. */
const INTERACTIVE_DEADLINE_MS = 15 * 60_000;
/** The bulk rate before the interactive commands is read over this window. */
const BEFORE_WINDOW_MS = 10_000;

export interface FairnessRun {
  readonly classes: 'on' | 'off';
  readonly interactive: {
    readonly sent: number;
    readonly completed: number;
    /** Produce to terminal event. */
    readonly latencyMs: Percentiles;
    readonly outcomes: Record<string, number>;
  };
  /** Reminders ended a second: just before the interactive commands, and while they came. */
  readonly bulkPerSecond: { readonly before: number; readonly during: number };
  /** What the simulator received a second while the interactive commands came. */
  readonly platformPerSecond: { readonly during: number; readonly busiest5s: number };
  /** 429 answers: the simulator's, and those the bridge counted. */
  readonly throttled: { readonly simulator: number; readonly bridge: number };
}

export interface FairnessResult {
  readonly withClasses: FairnessRun;
  readonly withoutClasses: FairnessRun;
}

export async function measureFairness(run: RunContext): Promise<FairnessResult> {
  return {
    withClasses: await fairnessRun(run, 'on'),
    withoutClasses: await fairnessRun(run, 'off'),
  };
}

async function fairnessRun(run: RunContext, classes: 'on' | 'off'): Promise<FairnessRun> {
  const { options } = run;
  const { reminds, contracts } = options.fairness;
  const plan = {
    name: `fairness-${classes}`,
    subject: BRIDGE,
    requestsPerSecond: options.drainRps,
    connections: MAX_IN_FLIGHT,
    env: classes === 'off' ? CLASSES_OFF : {},
    backlog: reminds,
    capacity: reminds,
    bizIds: contracts,
    mix: { remind: 20 },
    faults: { latency: { fixedMs: options.latencyMs }, requestsPerSecond: options.drainRps },
  };
  return runScenario(run, plan, async (staged, started) => {
    const platform = new PlatformRate(run.simulator.admin);
    try {
      return await observe(run, classes, staged, started, platform);
    } finally {
      await platform.stop();
    }
  });
}

async function observe(
  run: RunContext,
  classes: 'on' | 'off',
  staged: Stage,
  started: Started,
  platform: PlatformRate,
): Promise<FairnessRun> {
  const { warmupS, seconds, everyMs } = run.options.fairness;
  const firstAt = started.readyAt + warmupS * 1000;
  const count = Math.floor((seconds * 1000) / everyMs);
  for (let i = 0; i < count; i++) {
    await delay(firstAt + i * everyMs - Date.now());
    const id = `${staged.prefix}interactive-${i}`;
    await staged.writer.send(
      [{ type: 'create-contract', command: createContract(id, id) }],
      'interactive',
    );
  }
  const lastAt = Date.now();
  const deadline = lastAt + INTERACTIVE_DEADLINE_MS;
  const alive = () => started.child.running && Date.now() < deadline;
  await staged.tally.waitFor('interactive', count, INTERACTIVE_DEADLINE_MS, alive);
  const metrics = started.metrics && (await scrape(started.metrics.port));
  await platform.stop();
  const bulk = staged.tally.phase('backlog').eventTimes;
  const perSecond = (from: number, to: number) =>
    round(bulk.filter((t) => t >= from && t < to).length / ((to - from) / 1000));
  // The second half of the warm-up at most: the first is the bridge getting going.
  const beforeFrom = Math.max(firstAt - BEFORE_WINDOW_MS, (started.readyAt + firstAt) / 2);
  const during = platform.series(firstAt, lastAt);
  const all = platform.series(started.readyAt, Date.now());
  const interactive = staged.tally.phase('interactive');
  return {
    classes,
    interactive: {
      sent: count,
      completed: interactive.eventTimes.length,
      latencyMs: percentiles(interactive.latenciesMs),
      outcomes: outcomesOf(staged, 'signingbridge.contract.created'),
    },
    bulkPerSecond: {
      before: perSecond(beforeFrom, firstAt),
      during: perSecond(firstAt, lastAt),
    },
    platformPerSecond: {
      during: round(during.reduce((sum, s) => sum + s.requests, 0) / Math.max(1, during.length)),
      busiest5s: round(busiestWindow(during, 5)),
    },
    throttled: {
      simulator: all.reduce((sum, s) => sum + s.throttled, 0),
      bridge: metrics?.get('platform_throttled_total') ?? 0,
    },
  };
}

/** The interactive commands' terminal events by type (the reminders' are counted apart). */
function outcomesOf(staged: Stage, success: string): Record<string, number> {
  const created = staged.tally.outcomes.get(success) ?? 0;
  const failures = [...staged.tally.outcomes].filter(
    ([type]) => type !== success && type !== 'signingbridge.reminder.sent',
  );
  return Object.fromEntries([[success, created], ...failures]);
}
