/**
 * The ledger scenario of `npm run bench` (`--only ledger`): the bridge starting on ledgers of
 * 100,000, 1 million and 10 million bizIds of history, of which 100,000 were active within the
 * replay window. Per size: time to ready, CPU to ready, peak RSS and live heap under the image's
 * NODE_OPTIONS, entries held, the latency of new commands after the start and whether each
 * succeeded (the verdict fails if one did not); on the 1 million
 * ledger, a second bridge joining so that half the partitions move. A run with an empty ledger
 * first is the baseline that memory per bizId is measured against.
 */
import { cpus, totalmem } from 'node:os';
import type { RunContext } from '../bridge/run-context.js';
import { progress } from '../bridge/run-context.js';
import { round } from '../bridge/stats.js';
import { measureSize, type SizeResult } from './measure.js';

export const LEDGER_TARGETS = {
  peakRssMb: 250,
  startupSecondsAtLargest: 10,
  rebalanceWaitMs: 5_000,
};

export async function measureLedgerScale(run: RunContext, loadAtStart: number[]) {
  const { sizes, windowBizIds, commands, rebalanceSize } = run.options.ledger;
  // The scenarios before may have left latency or a rate limit on the simulator.
  await run.simulator.admin.setFaults({});
  const context = {
    entries: run.entries,
    brokers: [...run.brokers],
    kafka: run.kafka,
    simulatorUrl: run.simulator.url,
    progress,
  };
  const results: SizeResult[] = [];
  for (const historyBizIds of sizes) {
    progress(`ledger of ${historyBizIds} bizIds`);
    results.push(
      await measureSize(context, {
        historyBizIds,
        windowBizIds: Math.min(windowBizIds, historyBizIds),
        commands,
        rebalance: historyBizIds === rebalanceSize,
      }),
    );
  }
  return summarise(results, loadAtStart);
}

export type LedgerScaleReport = ReturnType<typeof summarise>;

function summarise(results: SizeResult[], loadAtStart: number[]) {
  const empty = results.find((r) => r.historyBizIds === 0);
  const withWindow = results.find((r) => r.windowBizIds > 0);
  const bytesPerBizId =
    empty && withWindow
      ? round(((withWindow.liveHeapMb - empty.liveHeapMb) * 2 ** 20) / withWindow.entriesHeld, 0)
      : undefined;
  const largest = results.at(-1);
  const rebalance = results.find((r) => r.rebalance)?.rebalance;
  const verdicts = {
    noOutOfMemory: results.every((r) => !r.exitedEarly),
    newCommandsSucceeded: results.every((r) => r.newCommands.succeeded === r.newCommands.sent),
    peakRss: Math.max(...results.map((r) => r.peakRssMb)) <= LEDGER_TARGETS.peakRssMb,
    startupAtLargest:
      (largest?.startupSeconds ?? Number.POSITIVE_INFINITY) <=
      LEDGER_TARGETS.startupSecondsAtLargest,
    rebalanceWait:
      rebalance === undefined ? undefined : rebalance.waitMs.max <= LEDGER_TARGETS.rebalanceWaitMs,
  };
  return {
    machine: { cpus: cpus().length, memoryGb: round(totalmem() / 2 ** 30, 1), loadAtStart },
    targets: LEDGER_TARGETS,
    bytesPerBizId,
    verdicts,
    results,
  };
}

export function printLedgerScale(report: LedgerScaleReport): void {
  const rows = report.results.map((r) =>
    [
      r.historyBizIds.toLocaleString('en'),
      r.windowBizIds.toLocaleString('en'),
      r.ledgerRecords.toLocaleString('en'),
      `${r.startupSeconds} s`,
      `${r.restoreCpuSeconds} s`,
      `${r.peakRssMb} MB`,
      `${r.liveHeapMb} MB`,
      r.entriesHeld.toLocaleString('en'),
      `${r.commandLatencyMs.p50} / ${r.commandLatencyMs.p99} ms`,
      outcomesCell(r),
      r.rebalance
        ? `${r.rebalance.partitionsMoved} moved, max wait ${r.rebalance.waitMs.max} ms`
        : '',
    ].join(' | '),
  );
  const header =
    'history bizIds | in window | ledger records | start to ready | CPU to ready | peak RSS | live heap | entries held | new commands p50 / p99 | new commands succeeded / failed / not ended | rebalance';
  process.stdout.write(
    `\n| ${header} |\n|${header
      .split('|')
      .map(() => '---')
      .join('|')}|\n`,
  );
  for (const row of rows) process.stdout.write(`| ${row} |\n`);
  const v = report.verdicts;
  const mark = (ok: boolean | undefined) => (ok === undefined ? 'not run' : ok ? 'PASS' : 'FAIL');
  process.stdout.write(
    `\nmemory per bizId in the window: ${report.bytesPerBizId ?? '?'} bytes\n` +
      `no out-of-memory: ${mark(v.noOutOfMemory)}; every new command succeeded: ${mark(v.newCommandsSucceeded)}; peak RSS ≤ ${LEDGER_TARGETS.peakRssMb} MB: ${mark(v.peakRss)}; ` +
      `start-up ≤ ${LEDGER_TARGETS.startupSecondsAtLargest} s at the largest: ${mark(v.startupAtLargest)}; ` +
      `rebalance wait ≤ ${LEDGER_TARGETS.rebalanceWaitMs} ms: ${mark(v.rebalanceWait)}\n`,
  );
}

function outcomesCell({ newCommands: n }: SizeResult): string {
  return `${n.succeeded} / ${n.failed} / ${n.notEnded}`;
}
