// tsx scripts/local-kafka/cli.ts <command> [options]   (docs/local-kafka.md "Commands")
//   install    downloads the broker jars into .kafka/<version>/libs and exits
//   start      runs a broker in the foreground until SIGINT/SIGTERM; prints KAFKA_BROKERS=...
//              (--secured: also SASL_SSL and mutual-TLS listeners, and the bridge's settings for
//              them; --nodes N: a cluster of N nodes instead)
//   stop       asks what `start` runs (in another terminal) to shut down
//   stop|kill|start|restart --node <id>   acts on one node of the cluster `start --nodes N` runs
//   in-sync    waits until every partition of the running broker or cluster is in sync
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  DEFAULT_KAFKA_VERSION,
  ensureKafkaInstalled,
  type LocalKafkaUser,
  type SecuredKafka,
  startLocalKafka,
} from './broker.js';
import { MAX_NODES, MIN_NODES, startLocalCluster } from './cluster.js';
import {
  type ControlAddress,
  type NodeAction,
  requestNodeAction,
  serveControl,
} from './control.js';
import { waitInSync } from './replica-sync.js';

const USAGE = `usage: tsx scripts/local-kafka/cli.ts <command> [options]
  install                  [--version V]
  start                    [--version V] [--port P] [--data-dir D] [--secured]
  start --nodes N          [--version V] [--data-dir D]     a cluster of ${MIN_NODES} to ${MAX_NODES} nodes
  stop                     stops what \`start\` runs
  stop|kill|start|restart --node ID                         one node of that cluster
  in-sync                  [--timeout SECONDS]               waits until every partition is in sync`;
// `stop`, the node actions and `in-sync` find the foreground `start` through this file; one CLI
// broker or cluster per checkout. It holds the cluster's control token, so only its owner reads it.
const STATE_FILE = fileURLToPath(new URL('../../.kafka/cli-broker.json', import.meta.url));
const STOP_WAIT_MS = 60_000;

interface RunningKafka {
  pid: number;
  brokers: string;
  version: string;
  nodes: number;
  /** A cluster's; a single broker has none. */
  control?: ControlAddress;
}

/** What the foreground `start` runs, one broker or a cluster, as it reports and stops it. */
interface Started {
  brokers: readonly string[];
  nodes: number;
  control?: ControlAddress;
  /** "Kafka 3.9.2", then what to use it with, line by line. */
  title: string;
  details: string[];
  stop(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readRunning(): Promise<RunningKafka | undefined> {
  if (!existsSync(STATE_FILE)) return undefined;
  const running = JSON.parse(await readFile(STATE_FILE, 'utf8')) as RunningKafka;
  return isAlive(running.pid) ? running : undefined;
}

async function requireRunning(): Promise<RunningKafka> {
  const running = await readRunning();
  if (!running) throw new Error('no broker started by this CLI is running: `npm run kafka:start`');
  return running;
}

async function install(version: string): Promise<void> {
  const started = Date.now();
  const libs = await ensureKafkaInstalled(version);
  console.log(`Kafka ${version} installed in ${libs} (${Date.now() - started} ms)`);
}

/** One user per mechanism, with a password of this start's own. */
function securedUsers(): LocalKafkaUser[] {
  const password = () => randomBytes(12).toString('hex');
  return [
    { mechanism: 'SCRAM-SHA-512', username: 'bridge', password: password() },
    { mechanism: 'SCRAM-SHA-256', username: 'bridge-256', password: password() },
    { mechanism: 'PLAIN', username: 'bridge-plain', password: password() },
  ];
}

/** The bridge's environment for the SASL_SSL listener, and what mutual TLS adds. */
function describeSecured(secured: SecuredKafka, users: readonly LocalKafkaUser[]): string {
  const { certificates: tls } = secured;
  const scram = users[0] as LocalKafkaUser;
  return [
    'SASL_SSL listener (users: ' +
      users.map((u) => `${u.username} ${u.mechanism}`).join(', ') +
      '):',
    `  KAFKA_BROKERS=${secured.saslSslBrokers.join(',')} KAFKA_TLS=true KAFKA_TLS_CA_FILE=${tls.caFile}`,
    `  KAFKA_SASL_MECHANISM=scram-sha-512 KAFKA_SASL_USERNAME=${scram.username} KAFKA_SASL_PASSWORD=${scram.password}`,
    ...users.slice(1).map((u) => `  ${u.username}: KAFKA_SASL_PASSWORD=${u.password}`),
    'mutual-TLS listener:',
    `  KAFKA_BROKERS=${secured.mtlsBrokers.join(',')} KAFKA_TLS=true KAFKA_TLS_CA_FILE=${tls.caFile}`,
    `  KAFKA_TLS_CERT_FILE=${tls.clientCertFile} KAFKA_TLS_KEY_FILE=${tls.clientKeyFile}`,
  ].join('\n');
}

interface StartOptions {
  version: string;
  port?: number;
  dataDir?: string;
  secured: boolean;
  nodes: number;
}

async function startBroker({ version, port, dataDir, secured }: StartOptions): Promise<Started> {
  const users = secured ? securedUsers() : [];
  const kafka = await startLocalKafka({
    version,
    port,
    dataDir,
    secured: secured ? { users } : undefined,
  });
  const details = kafka.secured ? [describeSecured(kafka.secured, users)] : [];
  return { brokers: kafka.brokers, nodes: 1, title: `Kafka ${version}`, details, stop: kafka.stop };
}

async function startCluster({
  version,
  port,
  dataDir,
  secured,
  nodes,
}: StartOptions): Promise<Started> {
  if (port !== undefined || secured)
    throw new Error(
      '--nodes starts every node on free ports, without secured listeners: leave out --port and --secured',
    );
  const cluster = await startLocalCluster({ nodes, version, dataDir });
  const control = await serveControl(cluster, (line) => console.error(line));
  const ids = cluster.nodeIds.join('|');
  const title = `Kafka ${version}, a cluster of ${nodes} nodes (${cluster.nodeIds.join(', ')}),`;
  const details = [
    `  one node: npm run kafka:stop|kafka:kill|kafka:start|kafka:restart -- --node <${ids}>`,
    '  wait until every partition is in sync: npm run kafka:in-sync',
  ];
  const stop = async () => {
    await control.close();
    await cluster.shutdown();
  };
  return { brokers: cluster.brokers, nodes, control, title, details, stop };
}

async function start(options: StartOptions): Promise<void> {
  const running = await readRunning();
  if (running) {
    throw new Error(
      `a broker started by this CLI is already running (pid ${running.pid}, ` +
        `KAFKA_BROKERS=${running.brokers}); run \`npm run kafka:stop\` first`,
    );
  }
  // Listen before starting: a signal during startup must still stop the JVMs, which Node's
  // default handler (exit without running 'exit' listeners) would leave running.
  const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const startedAt = Date.now();
  const kafka = await (options.nodes > 1 ? startCluster(options) : startBroker(options));
  const brokers = kafka.brokers.join(',');
  const state: RunningKafka = {
    pid: process.pid,
    brokers,
    version: options.version,
    nodes: kafka.nodes,
    control: kafka.control,
  };
  await mkdir(dirname(STATE_FILE), { recursive: true });
  // A crashed start's file may be left behind, with its mode: a new one is made 0600.
  await rm(STATE_FILE, { force: true });
  await writeFile(STATE_FILE, JSON.stringify(state), { mode: 0o600 });
  console.error(`${kafka.title} ready in ${Date.now() - startedAt} ms; Ctrl-C to stop`);
  for (const line of kafka.details) console.error(line);
  // The only line on stdout, so `eval "$(... start | head -1)"`-style wrappers stay simple.
  console.log(`KAFKA_BROKERS=${brokers}`);

  const signal = await stopRequested;
  console.error(`${signal}: stopping Kafka`);
  await kafka.stop();
  await rm(STATE_FILE, { force: true });
}

async function stop(): Promise<void> {
  const running = await readRunning();
  if (!running) {
    console.log('no broker started by this CLI is running');
    return;
  }
  process.kill(running.pid, 'SIGTERM');
  // The `start` process needs a moment for Kafka's controlled shutdown; wait so scripts that
  // call `stop` then reuse the port do not race it.
  const deadline = Date.now() + STOP_WAIT_MS;
  while (isAlive(running.pid) && Date.now() < deadline) await delay(200);
  if (isAlive(running.pid))
    throw new Error(`broker process ${running.pid} did not stop in ${STOP_WAIT_MS / 1000}s`);
  console.log(`stopped the broker at ${running.brokers}`);
}

async function actOnNode(action: NodeAction, nodeId: number): Promise<void> {
  const running = await requireRunning();
  if (!running.control)
    throw new Error(
      'the running broker is a single node: --node needs `npm run kafka:start -- --nodes 3`',
    );
  console.log(await requestNodeAction(running.control, nodeId, action));
}

async function inSync(timeoutMs: number): Promise<void> {
  const running = await requireRunning();
  const started = performance.now();
  const report = await waitInSync(running.brokers.split(','), {
    timeoutMs,
    onProgress: (line) => console.error(line),
  });
  const topics = new Set(report.partitions.map((p) => p.topic)).size;
  const waited = ((performance.now() - started) / 1000).toFixed(1);
  const partitions = `${counted(report.partitions.length, 'partition')} in ${counted(topics, 'topic')}`;
  console.log(
    `in sync: ${partitions}, each with a leader and every replica in its ISR (waited ${waited} s)`,
  );
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function parseInteger(flag: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new Error(`--${flag} must be an integer from ${min} to ${max}, got "${value}"`);
  return number;
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      version: { type: 'string', default: DEFAULT_KAFKA_VERSION },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      secured: { type: 'boolean', default: false },
      nodes: { type: 'string', default: '1' },
      node: { type: 'string' },
      timeout: { type: 'string', default: '120' },
    },
  });
  const [command] = positionals;
  const nodeId =
    values.node === undefined ? undefined : parseInteger('node', values.node, 1, MAX_NODES);
  if (
    (command === 'stop' || command === 'kill' || command === 'start' || command === 'restart') &&
    nodeId !== undefined
  )
    return actOnNode(command, nodeId);
  if (command === 'install') return install(values.version);
  if (command === 'start') {
    const nodes =
      values.nodes === '1' ? 1 : parseInteger('nodes', values.nodes, MIN_NODES, MAX_NODES);
    const port =
      values.port === undefined ? undefined : parseInteger('port', values.port, 1, 65_535);
    return start({
      version: values.version,
      port,
      dataDir: values['data-dir'],
      secured: values.secured,
      nodes,
    });
  }
  if (command === 'stop') return stop();
  if (command === 'in-sync')
    return inSync(parseInteger('timeout', values.timeout, 1, 3_600) * 1000);
  throw new Error(USAGE);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
