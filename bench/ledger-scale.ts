/**
 * `npm run bench:ledger`: the bridge starting on ledgers of 100,000, 1 million and 10 million
 * bizIds of history, of which 100,000 were active within the replay window (issue: state that
 * stays bounded over a deployment's lifetime). Per size: time to ready, CPU to ready, peak RSS
 * and live heap under the image's NODE_OPTIONS, entries held, the latency of new commands after
 * the start; on the 1 million ledger, a second bridge joining so that half the partitions move.
 * A run with an empty ledger first gives the baseline memory per bizId is measured against.
 * Prints a table and writes bench/results/ledger-scale.json; exits 0 whatever the verdicts.
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalKafka } from '../scripts/local-kafka/broker.js';
import { subjectEntries } from './bridge/build.js';
import { benchKafka } from './bridge/kafka-io.js';
import { progress } from './bridge/run-context.js';
import { round } from './bridge/stats.js';
import { measureSize, type SizeResult } from './ledger/measure.js';
import { ROOT } from './support/child-process.js';
import { startSimulatorProcess } from './support/simulator-process.js';

const USAGE = `Usage: npm run bench:ledger [-- --sizes 0,100000,1000000,10000000] [--window 100000]
                                [--commands 1000] [--rebalance-size 1000000] [--tsx]
`;

const TARGETS = {
  peakRssMb: 250,
  startupSecondsAtLargest: 10,
  rebalanceWaitMs: 5_000,
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '0,100000,1000000,10000000' },
      window: { type: 'string', default: '100000' },
      commands: { type: 'string', default: '1000' },
      'rebalance-size': { type: 'string', default: '1000000' },
      tsx: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return void process.stdout.write(USAGE);
  const sizes = values.sizes.split(',').map(Number);
  const windowBizIds = Number(values.window);
  const load = loadavg();
  const entries = await subjectEntries(values.tsx);
  const kafka = process.env.KAFKA_BROKERS
    ? { brokers: process.env.KAFKA_BROKERS.split(','), stop: async () => {} }
    : await startLocalKafka({ heapMb: 1024 });
  const simulator = await startSimulatorProcess();
  const results: SizeResult[] = [];
  try {
    const context = {
      entries,
      brokers: kafka.brokers,
      kafka: benchKafka(kafka.brokers),
      simulatorUrl: simulator.url,
      progress,
    };
    for (const historyBizIds of sizes) {
      progress(`ledger of ${historyBizIds} bizIds`);
      results.push(
        await measureSize(context, {
          historyBizIds,
          windowBizIds: Math.min(windowBizIds, historyBizIds),
          commands: Number(values.commands),
          rebalance: historyBizIds === Number(values['rebalance-size']),
        }),
      );
    }
  } finally {
    await simulator.child.stop();
    await kafka.stop();
  }
  const report = summarise(results, load);
  print(report);
  await writeFile(
    join(ROOT, 'bench/results/ledger-scale.json'),
    `${JSON.stringify(report, null, 2)}\n`,
  );
}

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
    peakRss: Math.max(...results.map((r) => r.peakRssMb)) <= TARGETS.peakRssMb,
    startupAtLargest:
      (largest?.startupSeconds ?? Number.POSITIVE_INFINITY) <= TARGETS.startupSecondsAtLargest,
    rebalanceWait:
      rebalance === undefined ? undefined : rebalance.waitMs.max <= TARGETS.rebalanceWaitMs,
  };
  return {
    machine: { cpus: cpus().length, memoryGb: round(totalmem() / 2 ** 30, 1), loadAtStart },
    targets: TARGETS,
    bytesPerBizId,
    verdicts,
    results,
  };
}

function print(report: ReturnType<typeof summarise>): void {
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
      r.rebalance
        ? `${r.rebalance.partitionsMoved} moved, max wait ${r.rebalance.waitMs.max} ms`
        : '',
    ].join(' | '),
  );
  const header =
    'history bizIds | in window | ledger records | start to ready | CPU to ready | peak RSS | live heap | entries held | new commands p50 / p99 | rebalance';
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
      `no out-of-memory: ${mark(v.noOutOfMemory)}; peak RSS ≤ ${TARGETS.peakRssMb} MB: ${mark(v.peakRss)}; ` +
      `start-up ≤ ${TARGETS.startupSecondsAtLargest} s at the largest: ${mark(v.startupAtLargest)}; ` +
      `rebalance wait ≤ ${TARGETS.rebalanceWaitMs} ms: ${mark(v.rebalanceWait)}\n`,
  );
}

await main();
