/**
 * `npm run bench`: the bridge against a naive kafkajs baseline on the same kind of backlog (and,
 * with --pc, against Confluent's parallel-consumer doing the baseline's work), then
 * the drain of a backlog under the platform's rate limit; interactive commands behind a batch,
 * with priority classes and without; bridge processes sharing one budget; a rolling deploy under
 * a backlog; the bridge starting on ledgers of years of history (see bench/README.md).
 * The broker is a local one (or KAFKA_BROKERS), the simulator and every subject each run in a
 * child process of their own. Prints tables with PASS/FAIL per target and writes
 * bench/results/*.json; exits 0 whatever the verdicts (it is a measurement, not a test).
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startLocalKafka } from '../scripts/local-kafka/broker.js';
import { AdminClient } from '../src/simulator/index.js';
import {
  fairnessVerdicts,
  groupVerdicts,
  printFairness,
  printGroup,
  saveResult,
} from './bridge/budget-report.js';
import { subjectEntries } from './bridge/build.js';
import { deployVerdicts, measureDeploy, printDeploy } from './bridge/deploy-run.js';
import { measureDrain } from './bridge/drain-run.js';
import { measureFairness } from './bridge/fairness-run.js';
import { measureGroup } from './bridge/group-run.js';
import { hotkeyVerdicts, measureHotkey, printHotkey } from './bridge/hotkey-run.js';
import { benchKafka, PARTITIONS } from './bridge/kafka-io.js';
import { parseOptions, USAGE } from './bridge/options.js';
import { parallelConsumerJar } from './bridge/parallel-consumer.js';
import { print } from './bridge/print.js';
import { machine, RESULTS, results, save } from './bridge/report.js';
import { progress, type RunContext } from './bridge/run-context.js';
import { BASELINE, BRIDGE, PARALLEL_CONSUMER } from './bridge/subjects.js';
import { measureThroughput } from './bridge/throughput-run.js';
import { measureLedgerScale, printLedgerScale } from './ledger/scale-run.js';
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

/**
 * KAFKA_BROKERS, or a local broker of our own (its JVM found, to read its CPU time), with a
 * larger heap for the ledger scenario's millions of records.
 */
async function broker(heapMb: number): Promise<{ brokers: string[]; pid: number | undefined }> {
  const given = process.env.KAFKA_BROKERS;
  if (given) return { brokers: given.split(','), pid: undefined };
  progress('starting a local Kafka broker');
  const kafka = await startLocalKafka({ heapMb });
  closers.push(() => kafka.stop());
  return { brokers: kafka.brokers, pid: await childPid(process.pid, 'java') };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options === 'help') return void process.stdout.write(USAGE);
  const loadAtStart = loadavg();
  progress(options.tsx ? 'subjects run under tsx' : 'compiling the subjects');
  const compiled = await subjectEntries(options.tsx);
  const entries =
    options.pc && options.scenarios.has('throughput')
      ? { ...compiled, parallelConsumer: await parallelConsumerJar(progress) }
      : compiled;
  const kafka = await broker(options.scenarios.has('ledger') ? 1024 : 512);
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
  if (options.scenarios.has('throughput')) await throughput(run, loadAtStart);
  /** A scenario's result and verdicts in bench/results/<name>.json, with the run's setting. */
  const keep = async (name: Parameters<typeof saveResult>[0], result: object) => {
    const file = await saveResult(name, { machine: machine(loadAtStart), options, ...result });
    process.stdout.write(`written to ${fileURLToPath(file)}\n`);
  };
  if (options.scenarios.has('fairness')) {
    progress(`fairness: ${options.fairness.reminds} reminders, then create-contracts`);
    const fairness = await measureFairness(run);
    const verdicts = fairnessVerdicts(fairness, options.drainRps);
    printFairness(fairness, verdicts);
    await keep('fairness', { fairness, verdicts });
  }
  if (options.scenarios.has('hotkey')) {
    progress(
      `hotkey: ${options.hotkey.reminds} reminders, ${options.hotkey.documents} add-documents, ${options.hotkey.largeDocuments} large ones`,
    );
    const hotkey = await measureHotkey(run);
    const verdicts = hotkeyVerdicts(hotkey);
    printHotkey(hotkey, verdicts);
    await keep('hotkey', { hotkey, verdicts });
  }
  if (options.scenarios.has('group')) {
    const group = await measureGroup(run);
    const verdicts = groupVerdicts(group);
    printGroup(group, verdicts);
    await keep('group', { group, verdicts });
  }
  if (options.scenarios.has('deploy')) {
    const deploy = await measureDeploy(run);
    const verdicts = deployVerdicts(deploy);
    printDeploy(deploy, verdicts);
    await keep('deploy', { deploy, verdicts });
  }
  if (options.scenarios.has('ledger')) {
    const ledger = await measureLedgerScale(run, loadAtStart);
    printLedgerScale(ledger);
    const file = await saveResult('ledger-scale', ledger);
    process.stdout.write(`written to ${fileURLToPath(file)}\n`);
  }
}

/**
 * The bridge against the baseline (and parallel-consumer with --pc), then the rate-limited drain:
 * bench/results/bridge.json.
 */
async function throughput(run: RunContext, loadAtStart: number[]): Promise<void> {
  const { options } = run;
  progress(`bridge: ${options.commands} commands`);
  const bridge = await measureThroughput(run, BRIDGE, options.commands);
  progress(
    `baseline: ${options.skipBaseline ? 'skipped' : `${options.baselineCommands} commands`}`,
  );
  const baseline = options.skipBaseline
    ? undefined
    : await measureThroughput(run, BASELINE, options.baselineCommands);
  progress(
    `parallel-consumer: ${options.pc ? `${options.pcCommands} commands` : 'not asked (--pc)'}`,
  );
  const parallelConsumer = options.pc
    ? await measureThroughput(run, PARALLEL_CONSUMER, options.pcCommands)
    : undefined;
  progress(`drain: ${options.skipDrain ? 'skipped' : `${options.drainSeconds} s window`}`);
  const drain = options.skipDrain ? undefined : await measureDrain(run);
  const summary = results({
    machine: machine(loadAtStart),
    options,
    bridge,
    baseline,
    parallelConsumer,
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
