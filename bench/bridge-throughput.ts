/**
 * `npm run bench`: the bridge against a naive kafkajs baseline on the same kind of backlog, then
 * the drain of a backlog under the platform's rate limit (see bench/README.md). The broker is a
 * local one (or KAFKA_BROKERS), the simulator, the bridge and the baseline each run in a child
 * process of their own. Prints a table with PASS/FAIL per target and writes
 * bench/results/bridge.json; exits 0 whatever the verdicts (it is a measurement, not a test).
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startLocalKafka } from '../scripts/local-kafka/broker.js';
import { AdminClient } from '../src/simulator/index.js';
import { subjectEntries } from './bridge/build.js';
import { measureDrain } from './bridge/drain-run.js';
import { benchKafka, PARTITIONS } from './bridge/kafka-io.js';
import { parseOptions, USAGE } from './bridge/options.js';
import { print } from './bridge/print.js';
import { machine, RESULTS, results, save } from './bridge/report.js';
import { progress, type RunContext } from './bridge/run-context.js';
import { BASELINE, BRIDGE } from './bridge/subjects.js';
import { measureThroughput } from './bridge/throughput-run.js';
import { childPid } from './support/proc-stats.js';
import { startSimulatorProcess } from './support/simulator-process.js';

/** Closes in reverse order of opening, once, also on SIGINT/SIGTERM. */
const closers: Array<() => Promise<unknown>> = [];
async function closeAll(): Promise<void> {
  for (let close = closers.pop(); close; close = closers.pop()) {
    await close().catch((error: unknown) => progress(`closing failed: ${error}`));
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void closeAll().finally(() => process.exit(130)));
}

/** KAFKA_BROKERS, or a local broker of our own (its JVM found, to read its CPU time). */
async function broker(): Promise<{ brokers: string[]; pid: number | undefined }> {
  const given = process.env.KAFKA_BROKERS;
  if (given) return { brokers: given.split(','), pid: undefined };
  progress('starting a local Kafka broker');
  const kafka = await startLocalKafka();
  closers.push(() => kafka.stop());
  return { brokers: kafka.brokers, pid: await childPid(process.pid, 'java') };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options === 'help') return void process.stdout.write(USAGE);
  const loadAtStart = loadavg();
  progress(options.tsx ? 'subjects run under tsx' : 'compiling the subjects');
  const entries = await subjectEntries(options.tsx);
  const kafka = await broker();
  // Latency and the rate limit are set through the admin API (as --latency-ms and --rps would),
  // so they can be off while each scenario makes its contracts.
  const simulator = await startSimulatorProcess();
  closers.push(() => simulator.child.stop());
  const run: RunContext = {
    options,
    entries,
    brokers: kafka.brokers,
    brokerPid: kafka.pid,
    kafka: benchKafka(kafka.brokers),
    simulator: { ...simulator, pid: simulator.child.pid, admin: new AdminClient(simulator.url) },
  };
  progress(`bridge: ${options.commands} commands`);
  const bridge = await measureThroughput(run, BRIDGE, options.commands);
  progress(
    `baseline: ${options.skipBaseline ? 'skipped' : `${options.baselineCommands} commands`}`,
  );
  const baseline = options.skipBaseline
    ? undefined
    : await measureThroughput(run, BASELINE, options.baselineCommands);
  progress(`drain: ${options.skipDrain ? 'skipped' : `${options.drainSeconds} s window`}`);
  const drain = options.skipDrain ? undefined : await measureDrain(run);
  const summary = results({
    machine: machine(loadAtStart),
    options,
    bridge,
    baseline,
    drain,
    partitions: PARTITIONS,
  });
  print(summary);
  await save(summary);
  process.stdout.write(`written to ${fileURLToPath(RESULTS)}\n`);
}

try {
  await main();
} finally {
  await closeAll();
}
