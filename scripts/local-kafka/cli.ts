// tsx scripts/local-kafka/cli.ts install|start|stop [--version V] [--port P] [--data-dir D]
//   install  downloads the broker jars into .kafka/<version>/libs and exits
//   start    runs a broker in the foreground until SIGINT/SIGTERM; prints KAFKA_BROKERS=...
//   stop     asks a broker started by `start` (in another terminal) to shut down
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_KAFKA_VERSION, ensureKafkaInstalled, startLocalKafka } from './broker.js';

const USAGE =
  'usage: tsx scripts/local-kafka/cli.ts install|start|stop [--version V] [--port P] [--data-dir D]';
// `stop` finds the foreground `start` through this file; one CLI broker per checkout.
const PID_FILE = fileURLToPath(new URL('../../.kafka/cli-broker.json', import.meta.url));

interface RunningBroker {
  pid: number;
  brokers: string;
  version: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readRunningBroker(): Promise<RunningBroker | undefined> {
  if (!existsSync(PID_FILE)) return undefined;
  const running = JSON.parse(await readFile(PID_FILE, 'utf8')) as RunningBroker;
  return isAlive(running.pid) ? running : undefined;
}

async function install(version: string): Promise<void> {
  const started = Date.now();
  const libs = await ensureKafkaInstalled(version);
  console.log(`Kafka ${version} installed in ${libs} (${Date.now() - started} ms)`);
}

async function start(version: string, port?: number, dataDir?: string): Promise<void> {
  const running = await readRunningBroker();
  if (running) {
    throw new Error(
      `a broker started by this CLI is already running (pid ${running.pid}, ` +
        `KAFKA_BROKERS=${running.brokers}); run \`npm run kafka:stop\` first`,
    );
  }
  // Listen before starting: a signal during startup must still stop the JVM, which Node's
  // default handler (exit without running 'exit' listeners) would leave running.
  const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const started = Date.now();
  const kafka = await startLocalKafka({ version, port, dataDir });
  const brokers = kafka.brokers.join(',');
  await mkdir(dirname(PID_FILE), { recursive: true });
  await writeFile(PID_FILE, JSON.stringify({ pid: process.pid, brokers, version }));
  console.error(`Kafka ${version} ready in ${Date.now() - started} ms; Ctrl-C to stop`);
  // The only line on stdout, so `eval "$(... start | head -1)"`-style wrappers stay simple.
  console.log(`KAFKA_BROKERS=${brokers}`);

  const signal = await stopRequested;
  console.error(`${signal}: stopping Kafka`);
  await kafka.stop();
  await rm(PID_FILE, { force: true });
}

async function stop(): Promise<void> {
  const running = await readRunningBroker();
  if (!running) {
    console.log('no broker started by this CLI is running');
    return;
  }
  process.kill(running.pid, 'SIGTERM');
  // The `start` process needs a moment for Kafka's controlled shutdown; wait so scripts that
  // call `stop` then reuse the port do not race it.
  const deadline = Date.now() + 30_000;
  while (isAlive(running.pid) && Date.now() < deadline) await delay(200);
  if (isAlive(running.pid)) throw new Error(`broker process ${running.pid} did not stop in 30s`);
  console.log(`stopped the broker at ${running.brokers}`);
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`--port must be an integer between 1 and 65535, got "${value}"`);
  }
  return port;
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      version: { type: 'string', default: DEFAULT_KAFKA_VERSION },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
    },
  });
  const [command] = positionals;
  if (command === 'install') return install(values.version);
  if (command === 'start') return start(values.version, parsePort(values.port), values['data-dir']);
  if (command === 'stop') return stop();
  throw new Error(USAGE);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
