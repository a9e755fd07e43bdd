/**
 * The group scenario: bridge processes in one consumer group, SIGNING_RPS at the platform's limit
 * for each (the whole group's budget), drain a backlog of single-call commands; a third of the way
 * one is killed (SIGKILL), two thirds of the way one is added. What the simulator received is
 * counted second by second, and each process's share (its /metrics) sampled every second.
 * Before it, the same processes given three times the budget (each its old per-instance 20/s)
 * for a while: what throttling and AIMD make of a budget set too high.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  largestShareSum,
  type Member,
  SHARE_ROUNDING,
  type ShareSample,
  sample,
  steadyRate,
  sumOf,
  tailFrom,
  total,
} from './group-shares.js';
import { busiestWindow, PlatformRate } from './platform-rate.js';
import { progress, type RunContext, type Stage, stage, startSubject } from './run-context.js';
import { round } from './stats.js';
import { BRIDGE } from './subjects.js';
import { SINGLE_CALL_MIX } from './workload.js';

const STALL_MS = 120_000;
const SAMPLE_MS = 1_000;

export interface GroupDrain {
  readonly commands: number;
  readonly completed: number;
  readonly seconds: number;
  readonly commandsPerSecond: number;
  /**
   * Requests a second while the shares in force made up the whole budget, before the last 5% of
   * the backlog (whose partitions run dry one by one, leaving their owners' shares unused).
   */
  readonly steadyPerSecond: number;
  /** Requests the simulator received a second, from the first process ready to the last event. */
  readonly series: readonly number[];
  readonly throttled: number;
  readonly busiest5s: number;
  /** When one was killed and one added, seconds from the start of the series. */
  readonly killedAtS: number;
  readonly addedAtS: number;
  /** From the kill (the addition) until the shares in force add up to the budget again. */
  readonly sharesRestoredAfterKillS: number | undefined;
  readonly sharesRestoredAfterAddS: number | undefined;
  /**
   * The most the shares in force ever added up to, from every process's log of its changes (at
   * the same millisecond a rise counts before a fall): exact, unlike the samples.
   */
  readonly largestShareSum: number;
  readonly samples: readonly ShareSample[];
  readonly outcomes: Record<string, number>;
  readonly repeatedTerminalEvents: number;
}

export interface OverBudget {
  readonly budgetRps: number;
  readonly seconds: number;
  readonly series: readonly number[];
  readonly meanPerSecond: number;
  readonly throttled: number;
  /** The rates in force, summed over the processes, at the end. */
  readonly inForceAtEnd: number;
}

export interface GroupResult {
  readonly bridges: number;
  readonly budgetRps: number;
  readonly overBudget: OverBudget | undefined;
  readonly drain: GroupDrain;
}

export async function measureGroup(run: RunContext): Promise<GroupResult> {
  const { group, drainRps } = run.options;
  const overBudget = group.overbudgetSeconds > 0 ? await overBudgetRun(run) : undefined;
  return { bridges: group.bridges, budgetRps: drainRps, overBudget, drain: await drainRun(run) };
}

/** Fresh topics and contracts, `bridges` processes started together; all stopped after. */
async function withGroup<T>(
  run: RunContext,
  plan: { name: string; backlog: number; budgetRps: number },
  measure: (staged: Stage, members: Member[], join: () => Promise<Member>) => Promise<T>,
): Promise<T> {
  const { options } = run;
  const staged = await stage(run, {
    name: plan.name,
    backlog: plan.backlog,
    capacity: plan.backlog,
    mix: SINGLE_CALL_MIX,
    faults: { latency: { fixedMs: options.latencyMs }, requestsPerSecond: options.drainRps },
  });
  const members: Member[] = [];
  const join = async () => {
    const started = await startSubject(run, BRIDGE, {
      topicPrefix: staged.prefix,
      connections: 256,
      requestsPerSecond: plan.budgetRps,
    });
    const member: Member = { started };
    members.push(member);
    return member;
  };
  try {
    await Promise.all(Array.from({ length: options.group.bridges }, join));
    return await measure(staged, members, join);
  } finally {
    await Promise.all(members.map((m) => m.started.child.stop()));
    await staged.close();
  }
}

async function overBudgetRun(run: RunContext): Promise<OverBudget> {
  const { drainRps, group } = run.options;
  const budgetRps = drainRps * group.bridges;
  const backlog = Math.ceil(group.overbudgetSeconds * drainRps * 2);
  progress(
    `group: ${group.bridges} processes given ${budgetRps}/s for ${group.overbudgetSeconds} s`,
  );
  return withGroup(run, { name: 'overbudget', backlog, budgetRps }, async (_, members) => {
    const platform = new PlatformRate(run.simulator.admin);
    const from = Math.max(...members.map((m) => m.started.readyAt));
    await delay(group.overbudgetSeconds * 1000);
    await platform.stop();
    const seconds = platform.series(from, from + group.overbudgetSeconds * 1000);
    const inForce = await sumOf(members, 'rate_limit_rps');
    return {
      budgetRps,
      seconds: group.overbudgetSeconds,
      series: seconds.map((s) => s.requests),
      meanPerSecond: round(total(seconds, 'requests') / Math.max(1, seconds.length)),
      throttled: total(seconds, 'throttled'),
      inForceAtEnd: round(inForce),
    };
  });
}

async function drainRun(run: RunContext): Promise<GroupDrain> {
  const { drainRps, group } = run.options;
  progress(`group: ${group.bridges} processes drain ${group.commands} commands at ${drainRps}/s`);
  const plan = { name: 'group', backlog: group.commands, budgetRps: drainRps };
  return withGroup(run, plan, async (staged, members, join) => {
    const platform = new PlatformRate(run.simulator.admin);
    const start = Math.min(...members.map((m) => m.started.readyAt));
    const samples: ShareSample[] = [];
    const sampler = setInterval(
      () => void sample(members, start).then((s) => samples.push(s)),
      SAMPLE_MS,
    );
    const alive = () => members.some((m) => m.killedAt === undefined && m.started.child.running);
    const tally = staged.tally;
    try {
      await tally.waitFor('backlog', Math.ceil(group.commands / 3), STALL_MS, alive);
      const victim = members[0] as Member;
      const killedAt = Date.now();
      victim.killedAt = killedAt;
      victim.started.child.process.kill('SIGKILL');
      progress('group: one process killed');
      await tally.waitFor('backlog', Math.ceil((2 * group.commands) / 3), STALL_MS, alive);
      const addedAt = Date.now();
      await join();
      progress('group: one process added');
      await tally.waitFor('backlog', group.commands, STALL_MS, alive);
      await platform.stop();
      const times = tally.phase('backlog').eventTimes;
      const end = times.reduce((last, t) => Math.max(last, t), start);
      const series = platform.series(start, end + 1000);
      const whole = (s: ShareSample) => Math.abs(s.sum - drainRps) < SHARE_ROUNDING;
      const restored = (after: number, members: number) =>
        samples.find((s) => s.t * 1000 >= after - start && s.shares.length === members && whole(s))
          ?.t;
      const bridges = group.bridges;
      const since = (at: number, t: number | undefined) =>
        t === undefined ? undefined : round(t - (at - start) / 1000, 1);
      return {
        commands: group.commands,
        completed: times.length,
        seconds: round((end - start) / 1000),
        commandsPerSecond: round(times.length / ((end - start) / 1000)),
        series: series.map((s) => s.requests),
        throttled: total(series, 'throttled'),
        busiest5s: round(busiestWindow(series, 5)),
        killedAtS: round((killedAt - start) / 1000, 1),
        addedAtS: round((addedAt - start) / 1000, 1),
        steadyPerSecond: steadyRate(series, samples, start, tailFrom(times)),
        sharesRestoredAfterKillS: since(killedAt, restored(killedAt, bridges - 1)),
        sharesRestoredAfterAddS: since(addedAt, restored(addedAt, bridges)),
        largestShareSum: round(largestShareSum(members), 3),
        samples,
        outcomes: Object.fromEntries(tally.outcomes),
        repeatedTerminalEvents: tally.repeats,
      };
    } finally {
      clearInterval(sampler);
      await platform.stop();
    }
  });
}
