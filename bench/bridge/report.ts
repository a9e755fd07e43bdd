/**
 * The benchmark's results: one JSON document (kept in bench/results/bridge.json) and the table
 * printed from it, with a PASS or FAIL line per target.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { IMAGE_NODE_OPTIONS } from '../support/image-node-options.js';
import { setsAsArrays } from './budget-report.js';
import type { DrainResult } from './drain-run.js';
import type { Options } from './options.js';
import { round } from './stats.js';
import { PC_JAVA_FLAGS } from './subjects.js';
import { drainVerdicts, throughputVerdicts, type Verdict } from './targets.js';
import type { ThroughputResult } from './throughput-run.js';
import { describeMix, THROUGHPUT_MIX } from './workload.js';

export const RESULTS = new URL('../results/bridge.json', import.meta.url);

export interface Results {
  readonly date: string;
  readonly machine: ReturnType<typeof machine>;
  readonly settings: Options & {
    readonly mix: string;
    readonly partitions: number;
    /** The image's, which the bridge runs with (--bridge-flags come after them). */
    readonly bridgeNodeOptions: string;
    /** The JVM flags of the parallel-consumer subject (with --pc). */
    readonly pcJavaFlags: readonly string[];
  };
  readonly throughput: {
    readonly bridge: ThroughputResult;
    readonly baseline: ThroughputResult | undefined;
    readonly ratio: number | undefined;
    /** With --pc: parallel-consumer doing the baseline's work (bench/parallel-consumer/). */
    readonly parallelConsumer: ThroughputResult | undefined;
    /** Bridge / parallel-consumer: commands per second, and CPU time per command. */
    readonly versusParallelConsumer:
      | { readonly commandsPerSecond: number; readonly cpuPerCommand: number }
      | undefined;
  };
  readonly drain: DrainResult | undefined;
  readonly verdicts: readonly Verdict[];
}

/** Load averages at the start are passed in: the run itself loads the machine. */
export function machine(loadAtStart: number[]) {
  return {
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model,
    memoryGb: round(totalmem() / 2 ** 30, 1),
    node: process.version,
    loadAverageAtStart: loadAtStart.map((n) => round(n)),
    loadAverageAtEnd: loadavg().map((n) => round(n)),
  };
}

export function results(
  parts: Omit<Results, 'date' | 'verdicts' | 'throughput' | 'settings'> & {
    options: Options;
    bridge: ThroughputResult;
    baseline: ThroughputResult | undefined;
    parallelConsumer: ThroughputResult | undefined;
    partitions: number;
  },
): Results {
  const { bridge, baseline, parallelConsumer: pc, drain, options, partitions } = parts;
  const ratio = baseline && round(bridge.commandsPerSecond / baseline.commandsPerSecond, 1);
  const versusParallelConsumer = pc && {
    commandsPerSecond: round(bridge.commandsPerSecond / pc.commandsPerSecond, 2),
    cpuPerCommand: round(bridge.cpuSecondsPer1000 / pc.cpuSecondsPer1000, 2),
  };
  return {
    date: new Date().toISOString(),
    machine: parts.machine,
    settings: {
      ...options,
      mix: describeMix(THROUGHPUT_MIX),
      partitions,
      bridgeNodeOptions: IMAGE_NODE_OPTIONS,
      pcJavaFlags: PC_JAVA_FLAGS,
    },
    throughput: { bridge, baseline, ratio, parallelConsumer: pc, versusParallelConsumer },
    drain,
    verdicts: [...throughputVerdicts(bridge, baseline), ...(drain ? drainVerdicts(drain) : [])],
  };
}

export async function save(r: Results): Promise<void> {
  await mkdir(new URL('.', RESULTS), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify(r, setsAsArrays, 2)}\n`);
}
