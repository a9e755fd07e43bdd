/**
 * The deploy scenario (issue 31, "a rolling deploy under a backlog"): `--deploy-reminds`
 * reminders for `--deploy-contracts` signing contracts wait (400 for 40); bridge A drains them
 * at SIGNING_RPS=`--deploy-rps` (5), the group's budget; `--deploy-join-after` s (10) after A
 * consumes, bridge B joins the group; `--deploy-stop-after` s (10) after B consumes, A gets
 * SIGTERM. The simulator answers at once. In the same run, the same backlog drained by one
 * bridge with no deploy is the baseline.
 *
 * Each command's delay is measured end to end (its first terminal event's time minus its produce
 * time). What the deploy adds: the k-th command to end in the deploy run against the k-th in the
 * baseline, both counted from the moment their first bridge consumes (so the bridges' start-up
 * and the produce times cancel out). Under a rate limit the k-th ending of a drain is paced by
 * the budget, so the difference is the time the deploy cost the backlog.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  progress,
  type RunContext,
  type Stage,
  type Started,
  stage,
  startSubject,
} from './run-context.js';
import { type Percentiles, percentiles, round } from './stats.js';
import { BRIDGE } from './subjects.js';
import type { Verdict } from './targets.js';

/** How long the drain may go without an ending before the scenario gives up on it. */
const STALL_MS = 2 * 60_000;
/** A small backlog at a few requests a second needs few connections. */
const CONNECTIONS = 64;
/**
 * The bound: a deploy delays commands by at most the hand-over, which waits
 * HANDOVER_TIMEOUT_MS (the service's default, 10 s) at the longest.
 */
export const HANDOVER_MS = 10_000;

export interface DeployDrain {
  readonly commands: number;
  readonly completed: number;
  /** First terminal events by type, and terminal events of a command that already had one. */
  readonly outcomes: Record<string, number>;
  readonly repeatedTerminalEvents: number;
  /** Reminder calls the simulator received for this run's contracts. */
  readonly platformCalls: number;
  /** Produce to first terminal event. */
  readonly endToEndMs: Percentiles;
  /** From the first bridge consuming to the last ending. */
  readonly drainedS: number;
  /** Seconds after A consumed: B consumed, A got SIGTERM, A exited (the deploy run only). */
  readonly deploy?: {
    readonly joinedAtS: number;
    readonly stoppedAtS: number;
    readonly exitedAtS: number;
    readonly exitCode: number | null;
    /** Commands ended when B consumed, and when A got SIGTERM. */
    readonly endedAtJoin: number;
    readonly endedAtStop: number;
  };
}

export interface DeployResult {
  readonly reminds: number;
  readonly contracts: number;
  readonly budgetRps: number;
  readonly baseline: DeployDrain;
  readonly withDeploy: DeployDrain;
  /** The deploy run's k-th ending minus the baseline's, over the endings both runs had. */
  readonly addedMs: Percentiles;
  /** The deploy run's end-to-end p99 minus the baseline's. */
  readonly p99DifferenceMs: number;
}

export async function measureDeploy(run: RunContext): Promise<DeployResult> {
  const { reminds, contracts, rps } = run.options.deploy;
  progress(`deploy: ${reminds} reminders for ${contracts} contracts at ${rps}/s, no deploy`);
  const baseline = await drain(run, 'deploy-baseline', false);
  progress('deploy: the same backlog, B joining and A stopped (SIGTERM) while it drains');
  const withDeploy = await drain(run, 'deploy', true);
  const added = withDeploy.sinceReady.map((t, k) => t - (baseline.sinceReady[k] ?? t));
  return {
    reminds,
    contracts,
    budgetRps: rps,
    baseline: baseline.drain,
    withDeploy: withDeploy.drain,
    addedMs: percentiles(added.slice(0, baseline.sinceReady.length)),
    p99DifferenceMs: round(withDeploy.drain.endToEndMs.p99 - baseline.drain.endToEndMs.p99),
  };
}

/** One drain of a fresh backlog; with `deploy`, B joins and A is stopped on the way. */
async function drain(
  run: RunContext,
  name: string,
  deploy: boolean,
): Promise<{ drain: DeployDrain; sinceReady: number[] }> {
  const { reminds, contracts, rps, joinAfterS, stopAfterS } = run.options.deploy;
  const staged = await stage(run, {
    name,
    backlog: reminds,
    capacity: reminds,
    mix: { remind: 20 },
    faults: {},
    bizIds: contracts,
  });
  const members: Started[] = [];
  const join = async () => {
    const member = await startSubject(run, BRIDGE, {
      topicPrefix: staged.prefix,
      connections: CONNECTIONS,
      requestsPerSecond: rps,
    });
    members.push(member);
    return member;
  };
  const alive = () => members.some((m) => m.child.running);
  try {
    const a = await join();
    const ended = () => staged.tally.phase('backlog').eventTimes.length;
    let shape: DeployDrain['deploy'];
    if (deploy) {
      await delay(joinAfterS * 1000);
      const b = await join();
      const endedAtJoin = ended();
      await delay(stopAfterS * 1000);
      const stoppedAt = Date.now();
      const endedAtStop = ended();
      const exitCode = await a.child.stop();
      const since = (t: number) => round((t - a.readyAt) / 1000, 1);
      shape = {
        joinedAtS: since(b.readyAt),
        stoppedAtS: since(stoppedAt),
        exitedAtS: since(Date.now()),
        exitCode,
        endedAtJoin,
        endedAtStop,
      };
    }
    await staged.tally.waitFor('backlog', reminds, STALL_MS, alive);
    return { drain: await summary(run, staged, a, shape), sinceReady: sinceReady(staged, a) };
  } finally {
    await Promise.all(members.map((m) => m.child.stop()));
    await staged.close();
  }
}

async function summary(
  run: RunContext,
  staged: Stage,
  first: Started,
  deploy: DeployDrain['deploy'],
): Promise<DeployDrain> {
  const { tally, workload } = staged;
  const phase = tally.phase('backlog');
  const ours = new Set(workload.bizIds);
  const calls = await run.simulator.admin.calls({ operation: 'remindSignatories' });
  const last = phase.eventTimes.reduce((latest, t) => Math.max(latest, t), first.readyAt);
  return {
    commands: run.options.deploy.reminds,
    completed: phase.eventTimes.length,
    outcomes: Object.fromEntries(tally.outcomes),
    repeatedTerminalEvents: tally.repeats,
    platformCalls: calls.filter((c) => c.bizId !== undefined && ours.has(c.bizId)).length,
    endToEndMs: percentiles(phase.latenciesMs),
    drainedS: round((last - first.readyAt) / 1000, 1),
    ...(deploy ? { deploy } : {}),
  };
}

/** Each ending's time from the first bridge consuming, in the order they came. */
function sinceReady(staged: Stage, first: Started): number[] {
  return staged.tally
    .phase('backlog')
    .eventTimes.map((t) => t - first.readyAt)
    .sort((x, y) => x - y);
}

export function deployVerdicts(r: DeployResult): Verdict[] {
  const d = r.withDeploy;
  const sent = (x: DeployDrain) => x.outcomes['signingbridge.reminder.sent'] ?? 0;
  return [
    {
      target: `a deploy delays commands by at most the hand-over: added p99 <= ${HANDOVER_MS / 1000} s`,
      measured: `added p50 / p99 / max ${r.addedMs.p50 / 1000} / ${r.addedMs.p99 / 1000} / ${r.addedMs.max / 1000} s`,
      pass: d.completed === d.commands && r.addedMs.p99 <= HANDOVER_MS,
    },
    {
      target: 'every command ends once, both runs',
      measured: `${r.baseline.completed} and ${d.completed} of ${d.commands}, ${r.baseline.repeatedTerminalEvents} and ${d.repeatedTerminalEvents} repeated`,
      pass: [r.baseline, d].every(
        (x) => x.completed === x.commands && x.repeatedTerminalEvents === 0,
      ),
    },
    {
      target: 'every reminder sent, each once: no "outcome unknown" on a healthy platform',
      measured: `${sent(d)} sent, ${d.platformCalls} calls received (no deploy: ${sent(r.baseline)}, ${r.baseline.platformCalls})`,
      pass: [r.baseline, d].every((x) => sent(x) === x.commands && x.platformCalls === x.commands),
    },
  ];
}

export function printDeploy(r: DeployResult, verdicts: readonly Verdict[]): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const d = r.withDeploy.deploy;
  out(
    `\nDeploy: ${r.reminds} reminders for ${r.contracts} contracts at SIGNING_RPS=${r.budgetRps}; ` +
      `B joined ${d?.joinedAtS} s after A consumed, A got SIGTERM at ${d?.stoppedAtS} s and exited at ${d?.exitedAtS} s (code ${d?.exitCode}); ` +
      `${d?.endedAtJoin} and ${d?.endedAtStop} ended by then`,
  );
  const row = (label: string, pick: (x: DeployDrain) => string) =>
    out(
      `  ${label.padEnd(36)} ${pick(r.baseline).padStart(30)} ${pick(r.withDeploy).padStart(30)}`,
    );
  out(`  ${''.padEnd(36)} ${'no deploy'.padStart(30)} ${'deploy'.padStart(30)}`);
  row('ended / repeated', (x) => `${x.completed} / ${x.repeatedTerminalEvents}`);
  row('reminder.sent / other endings', (x) => {
    const sent = x.outcomes['signingbridge.reminder.sent'] ?? 0;
    return `${sent} / ${x.completed - sent}`;
  });
  row('platform calls received', (x) => String(x.platformCalls));
  row(
    'e2e p50 / p99 / max',
    (x) => `${s(x.endToEndMs.p50)} / ${s(x.endToEndMs.p99)} / ${s(x.endToEndMs.max)}`,
  );
  row('drained in (from the first consuming)', (x) => `${x.drainedS} s`);
  out(
    `  added by the deploy (k-th ending): p50 ${s(r.addedMs.p50)}, p99 ${s(r.addedMs.p99)}, max ${s(r.addedMs.max)}; e2e p99 difference ${s(r.p99DifferenceMs)}`,
  );
  out();
  for (const v of verdicts) out(`  ${v.pass ? 'PASS' : 'FAIL'}  ${v.target}: ${v.measured}`);
}
