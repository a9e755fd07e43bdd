/**
 * The fairness and group scenarios' results: their targets judged, a table each on stdout, and
 * their JSON kept in bench/results/fairness.json and bench/results/group.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { FairnessResult, FairnessRun } from './fairness-run.js';
import type { GroupResult } from './group-run.js';
import type { Verdict } from './targets.js';

const RESULTS = new URL('../results/', import.meta.url);
const out = (line = '') => process.stdout.write(`${line}\n`);
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export const BUDGET_TARGETS = {
  interactiveP99Ms: 3_000,
  tolerance: 1,
  /** No 5-second window of the group's requests above this many a second. */
  busiestWindowRps: 21,
} as const;

export function fairnessVerdicts(r: FairnessResult, rps: number): Verdict[] {
  const on = r.withClasses;
  const { interactiveP99Ms, tolerance } = BUDGET_TARGETS;
  const near = (value: number) => Math.abs(value - rps) <= tolerance;
  return [
    {
      target: `interactive p99 <= ${s(interactiveP99Ms)}, every one created`,
      measured: `${s(on.interactive.latencyMs.p99)}, ${on.interactive.completed} of ${on.interactive.sent}`,
      pass:
        on.interactive.latencyMs.p99 <= interactiveP99Ms &&
        on.interactive.completed === on.interactive.sent,
    },
    {
      target: `bulk drains at ${rps} +/- ${tolerance}/s (before the interactive commands)`,
      measured: `${on.bulkPerSecond.before}/s`,
      pass: near(on.bulkPerSecond.before),
    },
    {
      target: `while they come, the platform still gets ${rps} +/- ${tolerance}/s (bulk + interactive)`,
      measured: `${on.platformPerSecond.during}/s (bulk ${on.bulkPerSecond.during}/s)`,
      pass: near(on.platformPerSecond.during),
    },
    {
      target: 'zero 429',
      measured: `${on.throttled.simulator} (simulator), ${on.throttled.bridge} (bridge)`,
      pass: on.throttled.simulator === 0 && on.throttled.bridge === 0,
    },
  ];
}

export function groupVerdicts(r: GroupResult): Verdict[] {
  const d = r.drain;
  const { tolerance, busiestWindowRps } = BUDGET_TARGETS;
  return [
    {
      target: `the platform sees ${r.budgetRps} +/- ${tolerance}/s while the backlog drains (shares whole, before the last 5%)`,
      measured: `${d.steadyPerSecond}/s (${d.commandsPerSecond}/s over all ${d.seconds} s, the kill's gap and the tail included)`,
      pass: Math.abs(d.steadyPerSecond - r.budgetRps) <= tolerance,
    },
    {
      target: 'zero 429',
      measured: String(d.throttled),
      pass: d.throttled === 0,
    },
    {
      target: `no 5-second window above ${busiestWindowRps}/s`,
      measured: `busiest ${d.busiest5s}/s`,
      pass: d.busiest5s <= busiestWindowRps,
    },
    {
      target: 'survivors take up the share in one rebalance; shares never add up to more',
      measured: `back at ${r.budgetRps}/s ${d.sharesRestoredAfterKillS ?? 'never'} s after the kill, ${d.sharesRestoredAfterAddS ?? 'never'} s after the addition; largest sum ${d.largestShareSum}`,
      pass:
        d.sharesRestoredAfterKillS !== undefined &&
        d.sharesRestoredAfterAddS !== undefined &&
        d.largestShareSum <= r.budgetRps + 0.01,
    },
    {
      target: 'every command ends once',
      measured: `${d.completed} of ${d.commands}, ${d.repeatedTerminalEvents} repeated`,
      pass: d.completed === d.commands && d.repeatedTerminalEvents === 0,
    },
  ];
}

export function printFairness(r: FairnessResult, verdicts: readonly Verdict[]): void {
  out('\nFairness: interactive create-contracts behind a batch of reminders');
  const row = (label: string, pick: (run: FairnessRun) => string) =>
    out(
      `  ${label.padEnd(44)} ${pick(r.withClasses).padStart(22)} ${pick(r.withoutClasses).padStart(22)}`,
    );
  out(`  ${''.padEnd(44)} ${'classes on'.padStart(22)} ${'classes off'.padStart(22)}`);
  row('interactive e2e p50 / p99 / max', (run) => {
    const l = run.interactive.latencyMs;
    return `${s(l.p50)} / ${s(l.p99)} / ${s(l.max)}`;
  });
  row('interactive ended', (run) => `${run.interactive.completed} of ${run.interactive.sent}`);
  row(
    'bulk/s before / during',
    (run) => `${run.bulkPerSecond.before} / ${run.bulkPerSecond.during}`,
  );
  row('platform/s during (busiest 5 s)', (run) => {
    const p = run.platformPerSecond;
    return `${p.during} (${p.busiest5s})`;
  });
  row('429 simulator / bridge', (run) => `${run.throttled.simulator} / ${run.throttled.bridge}`);
  printVerdicts(verdicts);
}

export function printGroup(r: GroupResult, verdicts: readonly Verdict[]): void {
  const d = r.drain;
  out(`\nGroup: ${r.bridges} processes, SIGNING_RPS=${r.budgetRps} (the group's budget)`);
  if (r.overBudget) {
    const o = r.overBudget;
    out(
      `  given ${o.budgetRps}/s (three times too much) for ${o.seconds} s: the platform got ${o.meanPerSecond}/s, ${o.throttled} x 429, rates in force ${o.inForceAtEnd}/s at the end`,
    );
    out(`  per second: ${o.series.join(' ')}`);
  }
  out(
    `  drained ${d.completed} of ${d.commands} in ${d.seconds} s (${d.commandsPerSecond}/s); killed one at ${d.killedAtS} s, added one at ${d.addedAtS} s`,
  );
  out(`  requests the simulator received, per second:`);
  for (let i = 0; i < d.series.length; i += 30) {
    out(`    ${String(i).padStart(5)} s: ${d.series.slice(i, i + 30).join(' ')}`);
  }
  printVerdicts(verdicts);
}

function printVerdicts(verdicts: readonly Verdict[]): void {
  out();
  for (const v of verdicts) out(`  ${v.pass ? 'PASS' : 'FAIL'}  ${v.target}: ${v.measured}`);
}

export async function saveResult(
  name: 'fairness' | 'hotkey' | 'group' | 'deploy' | 'ledger-scale',
  result: object,
): Promise<URL> {
  await mkdir(RESULTS, { recursive: true });
  const file = new URL(`${name}.json`, RESULTS);
  const document = { date: new Date().toISOString(), ...result };
  await writeFile(file, `${JSON.stringify(document, setsAsArrays, 2)}\n`);
  return file;
}

/** JSON has no sets: the scenarios chosen are written as a list. */
export function setsAsArrays(_: string, value: unknown): unknown {
  return value instanceof Set ? [...value] : value;
}
