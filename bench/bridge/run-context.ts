/**
 * What every scenario of a benchmark run shares (the broker, the simulator, the options), and
 * the steps each scenario repeats: fresh topics, contracts made while the simulator adds no
 * latency, a preloaded backlog, a subject started and timed from the moment it consumes.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KafkaConnection } from '../../src/kafka/index.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import type { AdminClient, FaultConfig } from '../../src/simulator/index.js';
import { type NodeChild, ROOT } from '../support/child-process.js';
import { cpuSeconds, machineBusySeconds } from '../support/proc-stats.js';
import { freePort, scrape } from './bridge-metrics.js';
import type { Entries } from './build.js';
import { setUpContracts } from './contracts-setup.js';
import { EventTally } from './event-tally.js';
import { type GcTotals, gcMark } from './gc-tally.js';
import { CommandWriter, createTopics } from './kafka-io.js';
import type { Options } from './options.js';
import type { Subject, SubjectContext } from './subjects.js';
import { type Mix, Workload } from './workload.js';

/** Where --cpu-prof and --heap-sample write, relative to the repository (not kept in git). */
const PROFILES = 'bench/results/profiles';

/** A line on stderr saying what the benchmark is doing. */
export const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export interface RunContext {
  readonly options: Options;
  readonly entries: Entries;
  readonly brokers: readonly string[];
  readonly kafka: KafkaConnection;
  readonly simulator: { readonly url: string; readonly pid: number; readonly admin: AdminClient };
  /** The broker's JVM, when this process started it. */
  readonly brokerPid: number | undefined;
}

export interface Stage {
  readonly prefix: string;
  readonly workload: Workload;
  readonly writer: CommandWriter;
  readonly tally: EventTally;
  close(): Promise<void>;
}

/**
 * Fresh topics and contracts for one scenario, the backlog produced (phase `backlog`) and the
 * events topic read; then the simulator's faults for the measurement are put in force.
 */
export async function stage(
  run: RunContext,
  plan: {
    name: string;
    backlog: number;
    capacity: number;
    mix: Mix;
    faults: FaultConfig;
    /** Contracts made for the workload (default --biz-ids). */
    bizIds?: number;
  },
): Promise<Stage> {
  const runId = `${plan.name}-${randomUUID().slice(0, 6)}`;
  const prefix = `bench-${runId}.`;
  const topics = topicNames(prefix);
  const workload = new Workload({ runId, bizIds: run.options.bizIds, ...plan });
  await run.simulator.admin.setFaults({});
  progress(`${plan.name}: making ${workload.bizIds.length} contracts`);
  await setUpContracts(run.simulator.url, workload);
  await createTopics(run.kafka, topics);
  const writer = new CommandWriter(run.brokers, topics);
  const tally = await EventTally.start(run.brokers, topics, writer.sent);
  progress(`${plan.name}: producing a backlog of ${plan.backlog} commands`);
  await writer.send(workload.take(plan.backlog), 'backlog');
  await run.simulator.admin.setFaults(plan.faults);
  const close = async () => {
    await Promise.allSettled([writer.close(), tally.stop()]);
    await run.simulator.admin.setFaults({});
  };
  return { prefix, workload, writer, tally, close };
}

export interface Started {
  readonly child: NodeChild;
  /** Date.now() when it said it consumes. */
  readonly readyAt: number;
  readonly cpuAtReady: number;
  /** CPU seconds the simulator and this process had used then. */
  readonly othersCpuAtReady: OthersCpu;
  readonly startupMs: number;
  /** The subject's metrics then, and the port to read them again. */
  readonly metrics: { readonly port: number; readonly atReady: Map<string, number> } | undefined;
  /** Its garbage collections so far, with --gc-tally (a Node subject). */
  readonly gcAtReady: GcTotals | undefined;
}

export interface OthersCpu {
  readonly simulator: number;
  readonly broker: number | undefined;
  readonly bench: number;
  /** Every process of the machine, ours included. */
  readonly machine: number | undefined;
}

export async function othersCpu(run: RunContext): Promise<OthersCpu> {
  const { user, system } = process.cpuUsage();
  return {
    simulator: (await cpuSeconds(run.simulator.pid)) ?? 0,
    broker: run.brokerPid === undefined ? undefined : await cpuSeconds(run.brokerPid),
    bench: (user + system) / 1e6,
    machine: await machineBusySeconds(),
  };
}

export async function startSubject(
  run: RunContext,
  subject: Subject,
  context: Omit<
    SubjectContext,
    | 'entries'
    | 'brokers'
    | 'simulatorUrl'
    | 'cpuProfDir'
    | 'gcTally'
    | 'heapSampleDir'
    | 'metricsPort'
    | 'tuning'
  >,
): Promise<Started> {
  const started = Date.now();
  if (run.options.heapSample) await mkdir(join(ROOT, PROFILES), { recursive: true });
  const metricsPort = subject.metrics ? await freePort() : 0;
  const child = subject.start({
    ...context,
    entries: run.entries,
    brokers: run.brokers,
    simulatorUrl: run.simulator.url,
    metricsPort,
    tuning: run.options,
    cpuProfDir: run.options.cpuProf ? PROFILES : undefined,
    gcTally: run.options.gcTally && subject.gcTally,
    heapSampleDir: run.options.heapSample ? PROFILES : undefined,
  });
  try {
    await child.waitForLine(subject.ready, 120_000);
  } catch (error) {
    await child.stop();
    throw new Error(`the ${subject.name} did not start: ${(error as Error).message}`);
  }
  const readyAt = Date.now();
  const gcAtReady = run.options.gcTally && subject.gcTally ? await gcMark(child) : undefined;
  return {
    child,
    readyAt,
    cpuAtReady: (await cpuSeconds(child.pid)) ?? 0,
    othersCpuAtReady: await othersCpu(run),
    startupMs: readyAt - started,
    metrics: metricsPort ? { port: metricsPort, atReady: await scrape(metricsPort) } : undefined,
    gcAtReady,
  };
}

/**
 * Stages a scenario, starts the subject, measures; stops the subject and closes the stage.
 * `connections` (default --connections) and `env` are the scenario's own, for the bridge.
 */
export async function runScenario<T>(
  run: RunContext,
  plan: Parameters<typeof stage>[1] & {
    subject: Subject;
    requestsPerSecond: number;
    connections?: number;
    env?: Readonly<Record<string, string>>;
  },
  measure: (staged: Stage, started: Started) => Promise<T>,
): Promise<T> {
  const staged = await stage(run, plan);
  try {
    const started = await startSubject(run, plan.subject, {
      topicPrefix: staged.prefix,
      connections: plan.connections ?? run.options.connections,
      requestsPerSecond: plan.requestsPerSecond,
      env: plan.env,
    });
    try {
      return await measure(staged, started);
    } finally {
      await started.child.stop();
    }
  } finally {
    await staged.close();
  }
}
