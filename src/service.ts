/**
 * The composition root: configuration in, a running bridge out. Each part is built once here
 * and handed to the next (the undici pool to the client, the client to the handlers, the
 * handlers to the bridge); no part builds another or reads the environment.
 */
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { type CallInfo, SigningClient, undiciTimeoutMs } from './api-client/index.js';
import {
  bridgeSettings,
  clientOptions,
  filePolicy,
  kafkaConnectionOptions,
  topics,
  tracingSettings,
} from './config/component-settings.js';
import type { Config } from './config/index.js';
import { Bridge, classWeights, type PartitionShare } from './consumers/index.js';
import { createFileLoader } from './files/index.js';
import { createHandlers } from './handlers/index.js';
import { createKafkaConnection } from './kafka/index.js';
import {
  commandLog,
  createMetrics,
  createTracing,
  type HealthServer,
  instanceStatus,
  type Metrics,
  type Observers,
  observers,
  startHealthServer,
  type Tracing,
} from './observability/index.js';

export interface Service {
  /**
   * Serves health and metrics, checks that Kafka accepts this client (TLS, SASL), then joins
   * the consumer group; resolves once consuming.
   */
  start(): Promise<void>;
  /** Graceful: the bridge's shutdown (bounded by SHUTDOWN_DEADLINE_MS), then every resource. */
  stop(): Promise<void>;
  readonly ready: boolean;
  /** The health server's port, once started (0 when HTTP_PORT is 0). */
  readonly healthPort: number;
}

/**
 * Builds every part without connecting anything: what the configuration cannot build (a setting
 * a part refuses) fails here, which is what `run --check-config` relies on.
 */
export function composeService(config: Config, log: Logger): Service {
  // Read at each scrape; the bridge is built below.
  const metrics = createMetrics({
    ready: () => bridge.ready,
    kafkaConnected: () => bridge.kafkaConnected,
    leaseHeld: () => bridge.leaseHeld,
  });
  const tracing = createTracing(tracingSettings(config), log);
  const observed = observers({ metrics, log: commandLog(log), tracing });
  const { pool, client } = platformClient(config, metrics, observed, tracing, log);
  const share = budgetShare(config, client, metrics, log);
  const files = createFileLoader(filePolicy(config));
  // kafkajs' lines carry component: kafkajs (log-adapter.ts), so the logger is not a child here.
  const kafka = createKafkaConnection(kafkaConnectionOptions(config, log));
  const bridge = new Bridge({
    kafka,
    topics: topics(config),
    handlers: createHandlers({ client, files }),
    settings: bridgeSettings(config),
    log,
    observer: observed.observer,
    onShareChange: share.changed,
  });
  let health: HealthServer | undefined;
  const release = () =>
    closeAll(log, [health?.close(), files.close(), pool.close(), tracing.shutdown()]);
  return {
    async start() {
      // Health first, so probes answer (alive, not ready) while the group is joined.
      if (config.HTTP_PORT > 0) {
        const startedAt = new Date();
        const status = () =>
          instanceStatus({
            registry: metrics.registry,
            bridge: () => bridge.status(),
            notReadyBecause: () => bridge.notReadyBecause(),
            budgetRps: config.SIGNING_RPS,
            startedAt,
          });
        health = await serveHealth(config, metrics, log, () => bridge.notReadyBecause(), status);
      }
      // A refused login fails here, named, instead of in a consumer that would retry forever.
      await tracing
        .start()
        .then(() => kafka.preflight())
        .then(() => bridge.start())
        .catch(async (error: unknown) => {
          await release();
          throw error;
        });
      share.started();
    },
    async stop() {
      await bridge.stop();
      await release();
    },
    get ready() {
      return bridge.ready;
    },
    get healthPort() {
      return health?.port ?? 0;
    },
  };
}

export async function startService(config: Config, log: Logger): Promise<Service> {
  const service = composeService(config, log);
  await service.start();
  return service;
}

/** One pool for every platform call, built here so its limits and lifetime are the service's. */
function platformClient(
  config: Config,
  metrics: Metrics,
  observed: Observers,
  tracing: Tracing,
  log: Logger,
) {
  const options = clientOptions(config);
  // As many connections as the client lets requests through at once (maxConcurrentRequests), so
  // a request it hands over never queues in undici; the call deadline is the one time limit.
  const pool = new Pool(new URL(options.baseUrl).origin, {
    connections: options.maxConcurrentRequests,
    connect: { timeout: options.timeouts.connectMs },
    headersTimeout: undiciTimeoutMs(options.timeouts.callMs),
    bodyTimeout: undiciTimeoutMs(options.timeouts.callMs),
  });
  const onCall = (info: CallInfo) => {
    observed.onCall(info);
    warnUnlisted(log, info);
  };
  const client = new SigningClient({
    ...options,
    dispatcher: pool,
    onCall,
    priorityWeights: Object.fromEntries(classWeights(bridgeSettings(config).classes)),
    onRateChange: (rate) => metrics.budget.rateInForce(rate),
    tracer: tracing.tracer,
  });
  return { pool, client };
}

/**
 * SIGNING_RPS is the whole group's budget: this instance may use the share of it that its share
 * of the command partitions gives (docs/design.md, "Circuit breaker and rate limit"), nothing
 * before it holds one. 0 (unlimited) has no shares.
 */
function budgetShare(config: Config, client: SigningClient, metrics: Metrics, log: Logger) {
  const budget = config.SIGNING_RPS;
  let current = { held: 0, of: 0, shareRps: 0 };
  const fields = () => ({ budgetRps: budget, ...current });
  if (budget > 0) client.setRateLimit(0);
  return {
    changed({ held, of }: PartitionShare): void {
      if (budget === 0) return;
      const rps = of > 0 ? (budget * Math.min(held, of)) / of : 0;
      current = { held, of, shareRps: Math.round(rps * 1000) / 1000 };
      client.setRateLimit(rps);
      metrics.budget.share(rps);
      log.info(fields(), 'platform budget share changed');
    },
    /** Says the share in force once the first partitions are restored. */
    started(): void {
      if (budget > 0) log.info(fields(), 'platform budget share');
      else log.info({ budgetRps: 0 }, 'platform budget unlimited (SIGNING_RPS=0)');
    },
  };
}

/**
 * A status or type the spec does not list, in an answer to a call that took effect: the command
 * goes on with the value as received, and operators learn that the platform has changed.
 */
function warnUnlisted(log: Logger, { operation, bizId, contractId, unlisted }: CallInfo): void {
  if (!unlisted?.length) return;
  log.warn(
    { operation, bizId, contractId, unlisted },
    'the platform answered values the spec does not list; kept as received',
  );
}

function serveHealth(
  config: Config,
  metrics: Metrics,
  log: Logger,
  notReadyBecause: () => readonly string[],
  status: () => Promise<object>,
) {
  return startHealthServer({
    host: config.HTTP_HOST,
    port: config.HTTP_PORT,
    notReadyBecause,
    registry: metrics.registry,
    log,
    status,
  });
}

/** Closes what it can; a resource that fails to close is logged, not allowed to stop the rest. */
async function closeAll(log: Logger, closing: Array<Promise<void> | undefined>): Promise<void> {
  const results = await Promise.allSettled(closing);
  for (const result of results) {
    if (result.status === 'rejected') log.warn({ err: result.reason }, 'closing a resource failed');
  }
}
