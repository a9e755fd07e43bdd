import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { SigningClient, type SigningClientOptions } from '../../src/api-client/index.js';
import {
  Bridge,
  type BridgeObserver,
  type BridgeSettings,
  classWeights,
  defaultBridgeSettings,
} from '../../src/consumers/index.js';
import { createFileLoader } from '../../src/files/index.js';
import { createHandlers } from '../../src/handlers/index.js';
import { createKafkaConnection, type KafkaConnection } from '../../src/kafka/index.js';
import type { TopicNames } from '../../src/schemas/messages/index.js';
import { DEMO_CREDENTIALS } from './simulator-credentials.js';
import { testLogger } from './test-logger.js';
import { uniqueId } from './unique.js';

export interface InProcessBridge {
  readonly bridge: Bridge;
  readonly settings: BridgeSettings;
  stop(): Promise<void>;
}

/** A Bridge with the real handlers and client, pointed at a simulator. */
export async function startBridge(options: {
  brokers: string[];
  topics: TopicNames;
  simulatorUrl: string;
  settings?: Partial<BridgeSettings>;
  observer?: BridgeObserver;
  log?: Logger;
  /** More client options, e.g. a rate limit; calls are weighted by the settings' classes. */
  client?: Partial<SigningClientOptions>;
  /** Wraps the Kafka connection, to watch what the bridge asks of it. */
  kafka?: (connection: KafkaConnection) => KafkaConnection;
  /** Traces the client's calls (src/observability/tracing.ts). */
  tracer?: Tracer;
}): Promise<InProcessBridge> {
  const log = options.log ?? testLogger('bridge');
  const settings = testSettings(options.settings);
  const client = new SigningClient({
    baseUrl: options.simulatorUrl,
    ...DEMO_CREDENTIALS,
    requestsPerSecond: 0,
    retry: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 5 },
    // A call per command at once, as when the client's own pool had no connection limit.
    maxConcurrentRequests: settings.maxInFlight,
    priorityWeights: Object.fromEntries(classWeights(settings.classes)),
    ...options.client,
    tracer: options.tracer,
  });
  const files = createFileLoader({
    allowedHosts: [],
    allowPrivate: false,
    maxBytes: 1_000_000,
    timeoutMs: 5_000,
    maxRedirects: 0,
  });
  const kafka = createKafkaConnection({ brokers: options.brokers, clientId: 'bridge-test', log });
  const bridge = new Bridge({
    kafka: options.kafka?.(kafka) ?? kafka,
    topics: options.topics,
    handlers: createHandlers({ client, files }),
    settings,
    log,
    observer: options.observer,
  });
  await bridge.start();
  let stopped: Promise<void> | undefined;
  const stop = async () => {
    await bridge.stop();
    await client.close();
    await files.close();
  };
  return { bridge, settings, stop: () => (stopped ??= stop()) };
}

/** Defaults made quick for tests: short retries and handovers. */
export function testSettings(overrides: Partial<BridgeSettings> = {}): BridgeSettings {
  return defaultBridgeSettings({
    groupId: uniqueId('bridge'),
    retry: {
      maxAttempts: 4,
      maxElapsedMs: 10_000,
      policy: { initialDelayMs: 20, maxDelayMs: 200, multiplier: 2 },
    },
    precondition: {
      timeoutMs: 3_000,
      policy: { initialDelayMs: 50, maxDelayMs: 300, multiplier: 2 },
    },
    handoverTimeoutMs: 5_000,
    shutdownDeadlineMs: 10_000,
    commitIntervalMs: 200,
    ...overrides,
  });
}
