/**
 * The results as a table on stdout: bridge against baseline (and parallel-consumer with --pc),
 * the drain, then the verdicts.
 */
import type { BridgeInsight, HeapMb } from './bridge-metrics.js';
import type { DrainResult } from './drain-run.js';
import type { GcResult } from './gc-tally.js';
import type { Results } from './report.js';
import type { ThroughputResult } from './throughput-run.js';

type Row = readonly [string, ...string[]];

const out = (line = '') => process.stdout.write(`${line}\n`);
const n = (value: number) => value.toLocaleString('en');

function table(rows: readonly Row[]): void {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  for (const row of rows) {
    out(
      `  ${row.map((cell, i) => (i === 0 ? cell.padEnd : cell.padStart).call(cell, widths?.[i] ?? 0)).join('   ')}`,
    );
  }
}

function throughputRows(
  bridge: ThroughputResult,
  baseline: ThroughputResult | undefined,
  pc: ThroughputResult | undefined,
): Row[] {
  // The baseline's column stays (n/a when skipped); parallel-consumer's only with --pc.
  const others: Array<[string, ThroughputResult | undefined]> = [['baseline', baseline]];
  if (pc) others.push(['parallel-consumer', pc]);
  const cells = (pick: (r: ThroughputResult) => string): string[] => [
    pick(bridge),
    ...others.map(([, r]) => (r ? pick(r) : 'n/a')),
  ];
  const ratios = (pick: (r: ThroughputResult) => number): string[] =>
    others.map(([, r]) => (r ? `${(pick(bridge) / Math.max(pick(r), 1e-9)).toFixed(2)}x` : 'n/a'));
  const none = others.map(() => '');
  const gcRow = (label: string, pick: (g: GcResult) => string): Row => [
    label,
    ...cells((r) => (r.gc ? pick(r.gc) : 'n/a')),
    ...none,
  ];
  const paced = (r: ThroughputResult) =>
    r.paced
      ? `${n(r.paced.latencyMs.p50)} / ${n(r.paced.latencyMs.p99)} ms @ ${r.paced.ratePerSecond}/s`
      : 'n/a';
  return [
    ['', 'bridge', ...others.map(([name]) => name), ...others.map(([name]) => `bridge/${name}`)],
    ['commands (completed)', ...cells((r) => `${n(r.completed)} of ${n(r.commands)}`), ...none],
    ['commands/s', ...cells((r) => n(r.commandsPerSecond)), ...ratios((r) => r.commandsPerSecond)],
    [
      'e2e latency p50 / p99, preloaded backlog',
      ...cells((r) => `${n(r.backlogLatencyMs.p50)} / ${n(r.backlogLatencyMs.p99)} ms`),
      ...none,
    ],
    ['e2e latency p50 / p99, paced', ...cells(paced), ...none],
    [
      'CPU s per 1,000 commands',
      ...cells((r) => String(r.cpuSecondsPer1000)),
      ...ratios((r) => r.cpuSecondsPer1000),
    ],
    ['peak RSS', ...cells((r) => `${r.peakRssMb} MB`), ...ratios((r) => r.peakRssMb)],
    [
      'meanwhile: simulator / broker / bench / rest',
      ...cells((r) => {
        const { simulator, broker, bench, elsewhere } = r.othersCores;
        return `${simulator} / ${broker ?? 'n/a'} / ${bench} / ${elsewhere ?? 'n/a'} cores`;
      }),
      ...none,
    ],
    ['start-up', ...cells((r) => `${r.startupSeconds} s`), ...none],
    ...(bridge.gc
      ? [
          gcRow(
            'GC per 1,000 commands (--gc-tally)',
            (g) => `${g.collectionsPer1000Commands} (${g.pauseMsPer1000Commands} ms paused)`,
          ),
          gcRow('JS heap allocated per command', (g) => `${g.allocatedKbPerCommand} KB`),
        ]
      : []),
    ['failure events', ...cells(failures), ...none],
  ];
}

function failures(r: ThroughputResult): string {
  const failed = Object.entries(r.outcomes).filter(([type]) =>
    type.startsWith('signingbridge.command.'),
  );
  const repeats = r.repeatedTerminalEvents > 0 ? ` (+${r.repeatedTerminalEvents} repeats)` : '';
  return `${failed.reduce((sum, [, count]) => sum + count, 0)}${repeats}`;
}

function insightRows(i: BridgeInsight): Row[] {
  const lag = i.eventLoopDelayMs;
  return [
    [
      'command duration, mean',
      `${i.commandMeanMs} ms (${i.platformCallsPerCommand} platform calls of ${i.platformCallMeanMs} ms each)`,
    ],
    ['commands at once, mean', `${i.meanConcurrency} (throughput x duration)`],
    ['event loop delay (10 ms timer)', `p50 ${lag.p50} ms, p99 ${lag.p99} ms, max ${lag.max} ms`],
    [
      'heap at the end',
      `${i.heapMb.used} MB used of ${i.heapMb.total} MB, ${i.heapMb.external} MB external`,
    ],
  ];
}

function drainRows(d: DrainResult): Row[] {
  return [
    [
      'drain rate',
      `${d.ratePerSecond} commands/s (${n(d.completedInWindow)} in ${d.windowSeconds} s after ${d.warmupSeconds} s warm-up)`,
    ],
    [
      'whole backlog, extrapolated',
      `${d.extrapolatedDrainMinutes} min for ${n(d.backlog)} commands`,
    ],
    [
      'throttling',
      `${d.throttled} x HTTP 429 from the simulator, ${d.gaveUp} gave-up, ${d.failures} failure events`,
    ],
    [
      'bridge RSS in the window',
      `${d.rssMb.min}..${d.rssMb.max} MB, fitted slope ${d.rssMb.slopePerMinute} MB/min, peaks ${d.rssMb.peaks.firstHalf} then ${d.rssMb.peaks.secondHalf} MB (${d.rssMb.series.length} samples)`,
    ],
    [
      'bridge heap, window start / end',
      d.heapMb ? `${heap(d.heapMb.start)} / ${heap(d.heapMb.end)}` : 'n/a',
    ],
  ];
}

const heap = (h: HeapMb) => `${h.used} of ${h.total} MB`;

export function print(r: Results): void {
  const s = r.settings;
  const m = r.machine;
  out();
  const pcCommands = s.pc ? `, parallel-consumer ${n(s.pcCommands)}` : '';
  out(
    `bridge vs naive baseline${s.pc ? ' and parallel-consumer' : ''}: ${n(s.commands)} commands (baseline ${n(s.baselineCommands)}${pcCommands}), ${s.mix}; ` +
      `${s.partitions} partitions, ${n(s.bizIds)} contracts' bizIds + new ones; simulator latency ${s.latencyMs} ms; ` +
      `${s.connections} connections and, in the bridge, commands at once; no rate limit`,
  );
  const extra = s.bridgeFlags.length > 0 ? `, then ${s.bridgeFlags.join(' ')}` : '';
  out(`bridge node options: ${s.bridgeNodeOptions} (its image's NODE_OPTIONS)${extra}`);
  if (s.pc) {
    out(
      `parallel-consumer: java ${s.pcJavaFlags.join(' ')}, KEY order, maxConcurrency ${s.connections}, periodic asynchronous commits`,
    );
  }
  out(
    `machine: ${m.nproc} CPUs (${m.cpuModel}), node ${m.node}, load average at start ${m.loadAverageAtStart.join(' ')}`,
  );
  const { bridge, baseline, parallelConsumer } = r.throughput;
  table(throughputRows(bridge, baseline, parallelConsumer));
  const { insight } = bridge;
  if (insight) {
    out('the bridge by its own metrics, over the backlog:');
    table(insightRows(insight));
  }
  if (r.drain) {
    out();
    out(
      `rate-limited drain: simulator --rps ${r.drain.requestsPerSecond}, bridge SIGNING_RPS=${r.drain.requestsPerSecond}, backlog ${n(r.drain.backlog)} single-call commands`,
    );
    table(drainRows(r.drain));
  }
  out();
  for (const v of r.verdicts) out(`${v.pass ? 'PASS' : 'FAIL'}  ${v.target}: ${v.measured}`);
}
