// tsx scripts/local-kafka/cli.ts install|start|stop [--version V] [--port P] [--data-dir D] [--secured]
//   install  downloads the broker jars into .kafka/<version>/libs and exits
//   start    runs a broker in the foreground until SIGINT/SIGTERM; prints KAFKA_BROKERS=...
//            (--secured: also SASL_SSL and mutual-TLS listeners, and the bridge's settings for them)
//   stop     asks a broker started by `start` (in another terminal) to shut down
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

const USAGE =
  'usage: tsx scripts/local-kafka/cli.ts install|start|stop [--version V] [--port P] [--data-dir D] [--secured]';
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

async function start(
  version: string,
  port?: number,
  dataDir?: string,
  secured = false,
): Promise<void> {
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
  const users = secured ? securedUsers() : [];
  const kafka = await startLocalKafka({
    version,
    port,
    dataDir,
    secured: secured ? { users } : undefined,
  });
  const brokers = kafka.brokers.join(',');
  await mkdir(dirname(PID_FILE), { recursive: true });
  await writeFile(PID_FILE, JSON.stringify({ pid: process.pid, brokers, version }));
  console.error(`Kafka ${version} ready in ${Date.now() - started} ms; Ctrl-C to stop`);
  if (kafka.secured) console.error(describeSecured(kafka.secured, users));
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
      secured: { type: 'boolean', default: false },
    },
  });
  const [command] = positionals;
  if (command === 'install') return install(values.version);
  if (command === 'start')
    return start(values.version, parsePort(values.port), values['data-dir'], values.secured);
  if (command === 'stop') return stop();
  throw new Error(USAGE);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
