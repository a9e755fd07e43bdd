/**
 * What the demo runs: a Kafka broker (a local one, unless brokers are given), the simulator
 * with its default fixtures, and the bridge built by the service's own composition root from a
 * configuration read by the real loader. stop() ends them in reverse: bridge, simulator, broker.
 */
import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import pino, { type Logger } from 'pino';
import { loggerSettings, topics as topicsOf } from '../../src/config/component-settings.js';
import { type Config, loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/observability/index.js';
import type { TopicNames } from '../../src/schemas/messages/index.js';
import { type Service, startService } from '../../src/service.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { startLocalBroker } from './local-broker.js';

/** The default fixtures' app, so anyone can sign their own calls to the simulator. */
export const DEMO_APP = { token: 'demo-app-token', secret: 'demo-app-secret' } as const;
const HOST = '127.0.0.1';

export interface Stack {
  /** This run's tag: in its group id and topic prefix, for its bizIds and commandIds too. */
  readonly run: string;
  readonly brokers: string[];
  readonly simulator: RunningSimulator;
  readonly config: Config;
  readonly topics: TopicNames;
  readonly service: Service;
  /** Warnings and errors of the bridge and the demo's own Kafka clients, on stderr. */
  readonly log: Logger;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** An existing broker; without it a local one is started (and stopped with the stack). */
  readonly brokers?: readonly string[];
  /** Checked between start-up steps: what already runs is stopped, and start-up rejects. */
  readonly signal?: AbortSignal;
  /** Start-up progress, one line per part. */
  readonly progress?: (line: string) => void;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const progress = options.progress ?? (() => {});
  const stops: Array<() => Promise<void>> = [];
  let stopping: Promise<void> | undefined;
  const stopAll = () => {
    // Reverse order of start: the bridge leaves its group before the broker goes away.
    stopping ??= stops.reverse().reduce((done, stop) => done.then(stop), Promise.resolve());
    return stopping;
  };
  const step = async <T>(start: () => Promise<T>, stop: (part: T) => Promise<void>) => {
    const part = await start();
    stops.push(() => stop(part));
    if (options.signal?.aborted) throw options.signal.reason;
    return part;
  };
  try {
    const kafka = await step(
      () => brokersFor(options.brokers, progress),
      (k) => k.stop(),
    );
    const simulator = await step(
      () => startSimulator({ log: false }),
      (s) => s.stop(),
    );
    progress(`simulator  ${simulator.url}  (default fixtures, app token ${DEMO_APP.token})`);
    const run = randomBytes(3).toString('hex');
    const env = demoEnvironment(run, kafka.brokers, simulator.url, await freePort());
    const config = loadConfig(env);
    const log = createLogger(loggerSettings(config), pino.destination({ dest: 2, sync: true }));
    const service = await step(
      () => startService(config, log),
      (s) => s.stop(),
    );
    progress(
      `bridge     consuming ${config.TOPIC_PREFIX}commands.*  (group ${config.KAFKA_GROUP_ID})`,
    );
    const topics = topicsOf(config);
    return {
      run,
      brokers: kafka.brokers,
      simulator,
      config,
      topics,
      service,
      log,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function brokersFor(given: readonly string[] | undefined, progress: (line: string) => void) {
  if (given && given.length > 0) {
    progress(`kafka      ${given.join(',')}  (given)`);
    return { brokers: [...given], stop: async () => {} };
  }
  progress('kafka      starting a local broker (the first run downloads it with Maven)…');
  const started = Date.now();
  const local = await startLocalBroker();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  progress(
    `kafka      ${local.brokers.join(',')}  (local ${local.version}, ready in ${seconds} s)`,
  );
  return local;
}

/**
 * The bridge's environment, as a deployment would set it. Group and topic prefix are new on
 * every run, so a re-run against the same broker starts from empty topics.
 */
function demoEnvironment(run: string, brokers: string[], simulatorUrl: string, httpPort: number) {
  return {
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_CLIENT_ID: 'signing-bridge-demo',
    KAFKA_GROUP_ID: `demo-${run}`,
    TOPIC_PREFIX: `demo-${run}.`,
    SIGNING_API_BASE_URL: simulatorUrl,
    SIGNING_APP_TOKEN: DEMO_APP.token,
    SIGNING_APP_SECRET: DEMO_APP.secret,
    // Warnings only: the event lines are the demo's output.
    LOG_LEVEL: 'warn',
    HTTP_HOST: HOST,
    HTTP_PORT: String(httpPort),
  };
}

/** A port free right now, for the health server (the default 8080 may well be taken). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
