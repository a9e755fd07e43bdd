/**
 * The configuration, read into the options each part of the service takes. The composition
 * root passes these on; no part reads the environment itself.
 */
import type { Logger } from 'pino';
import { DEFAULTS as CLIENT_DEFAULTS, type SigningClientOptions } from '../api-client/settings.js';
import {
  type BridgeSettings,
  defaultBridgeSettings,
  defaultLedgerMemoryBytes,
} from '../consumers/settings.js';
import { DOWNLOAD_TIMEOUT_MS, MAX_REDIRECTS } from '../files/download-limits.js';
import type { FilePolicy } from '../files/index.js';
import type {
  KafkaClientSettings,
  KafkaConnectionOptions,
  KafkaTlsSettings,
  TopicLayout,
} from '../kafka/index.js';
import type { LoggerSettings, TracingSettings } from '../observability/index.js';
import { type TopicNames, topicNames } from '../schemas/messages/topics.js';
import type { Config, KafkaConfig } from './table.js';

/**
 * What is not a setting takes the parts' own defaults: backoffs, the circuit breaker, the commit
 * interval, readiness, the ledger's commands per bizId, and every record limit but the value's
 * (docs/design.md states each where it describes the behaviour).
 */
const ENGINE = defaultBridgeSettings();

export function loggerSettings(config: Config): LoggerSettings {
  return {
    level: config.LOG_LEVEL,
    headerPrefix: config.SIGNING_HEADER_PREFIX,
  };
}

/**
 * Tracing is on when OTEL_TRACES_EXPORTER says otlp, or is empty while an OTLP endpoint is set;
 * OTEL_SDK_DISABLED turns it off regardless. Where spans go and what resource they carry,
 * OpenTelemetry's exporter and resource read from the same variables themselves.
 */
export function tracingSettings(config: Config): TracingSettings {
  const endpoint = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_ENDPOINT;
  const asked = config.OTEL_TRACES_EXPORTER ?? (endpoint ? 'otlp' : 'none');
  return {
    exporter: asked === 'otlp' && !config.OTEL_SDK_DISABLED ? 'otlp' : 'none',
    sampler: config.OTEL_TRACES_SAMPLER,
    samplerRatio: config.OTEL_TRACES_SAMPLER_ARG,
    eventsTopic: topics(config).events,
  };
}

/** Everything but the dispatcher and the onCall hook, which the composition root supplies. */
export function clientOptions(config: Config) {
  return {
    baseUrl: config.SIGNING_API_BASE_URL,
    appToken: config.SIGNING_APP_TOKEN,
    appSecret: config.SIGNING_APP_SECRET,
    headerPrefix: config.SIGNING_HEADER_PREFIX,
    nonce: config.SIGNING_SIGNATURE_MODE === 'md5-nonce',
    requestsPerSecond: config.SIGNING_RPS,
    // Within the call's deadline, connecting and resending what was never sent are the client's
    // own (CLIENT_DEFAULTS): the deadline and the cap on an answer's size are the deployment's.
    timeouts: {
      connectMs: CLIENT_DEFAULTS.timeouts.connectMs,
      callMs: config.SIGNING_CALL_TIMEOUT_MS,
    },
    maxConcurrentRequests: config.SIGNING_CONNECTIONS,
    maxResponseBytes: config.SIGNING_MAX_RESPONSE_BYTES,
    maxFileBytes: config.FILE_MAX_BYTES,
  } satisfies SigningClientOptions;
}

/**
 * How to reach the cluster. Every entry point that talks to the bridge's Kafka (the service,
 * tools beside it) builds its connection from this, so they all read the same variables.
 */
export function kafkaClientSettings(config: KafkaConfig): KafkaClientSettings {
  const mechanism = config.KAFKA_SASL_MECHANISM;
  const password = config.KAFKA_SASL_PASSWORD ?? config.KAFKA_SASL_PASSWORD_FILE?.text;
  const username = config.KAFKA_SASL_USERNAME;
  return {
    brokers: config.KAFKA_BROKERS,
    clientId: config.KAFKA_CLIENT_ID,
    tls: config.KAFKA_TLS ? tlsSettings(config) : undefined,
    // The loader has made sure a mechanism comes with both.
    sasl:
      mechanism === 'none' || username === undefined || password === undefined
        ? undefined
        : { mechanism, username, password },
  };
}

function tlsSettings(config: KafkaConfig): KafkaTlsSettings {
  const cert = config.KAFKA_TLS_CERT_FILE?.text;
  const key = config.KAFKA_TLS_KEY_FILE?.text;
  const passphrase = config.KAFKA_TLS_KEY_PASSWORD ?? config.KAFKA_TLS_KEY_PASSWORD_FILE?.text;
  return {
    ca: config.KAFKA_TLS_CA_FILE?.text,
    clientCertificate: cert && key ? { cert, key, passphrase } : undefined,
  };
}

export function filePolicy(config: Config): FilePolicy {
  return {
    allowedHosts: config.FILE_URL_ALLOWED_HOSTS,
    allowPrivate: config.FILE_URL_ALLOW_PRIVATE,
    maxBytes: config.FILE_MAX_BYTES,
    timeoutMs: DOWNLOAD_TIMEOUT_MS,
    maxRedirects: MAX_REDIRECTS,
  };
}

/** The service's connection, and every operator command's: the cluster, and its topics' layout. */
export function kafkaConnectionOptions(config: KafkaConfig, log: Logger): KafkaConnectionOptions {
  return { ...kafkaClientSettings(config), log, topicLayout: topicLayout(config) };
}

export function topicLayout(config: KafkaConfig): TopicLayout {
  return {
    partitions: config.TOPIC_PARTITIONS,
    replicationFactor: config.TOPIC_REPLICATION_FACTOR,
    minInsyncReplicas: config.TOPIC_MIN_INSYNC_REPLICAS,
    retentionMs: config.TOPIC_RETENTION_MS,
    deadLetterRetentionMs: config.TOPIC_DEAD_LETTER_RETENTION_MS,
    create: config.TOPICS_CREATE,
  };
}

export function topics(config: KafkaConfig): TopicNames {
  return topicNames(config.TOPIC_PREFIX, {
    commands: {
      'create-contract': config.TOPIC_COMMANDS_CREATE_CONTRACT,
      'add-document': config.TOPIC_COMMANDS_ADD_DOCUMENT,
      initiate: config.TOPIC_COMMANDS_INITIATE,
      approve: config.TOPIC_COMMANDS_APPROVE,
      remind: config.TOPIC_COMMANDS_REMIND,
      'add-signatory': config.TOPIC_COMMANDS_ADD_SIGNATORY,
    },
    events: config.TOPIC_EVENTS,
    deadLetter: config.TOPIC_DEAD_LETTER,
    ledger: config.TOPIC_LEDGER,
  });
}

export function bridgeSettings(config: Config): BridgeSettings {
  return {
    groupId: config.KAFKA_GROUP_ID,
    maxInFlight: config.MAX_IN_FLIGHT,
    eventLoopDelayTargetMs: ENGINE.eventLoopDelayTargetMs,
    maxPending: config.MAX_PENDING,
    maxPendingBytes: config.MAX_PENDING_BYTES,
    classes: { of: config.COMMAND_CLASSES, weights: config.CLASS_WEIGHTS },
    limits: {
      ...ENGINE.limits,
      record: { ...ENGINE.limits.record, maxValueBytes: config.RECORD_MAX_VALUE_BYTES },
    },
    retry: {
      ...ENGINE.retry,
      maxAttempts: config.RETRY_MAX_ATTEMPTS,
      maxElapsedMs: config.RETRY_MAX_ELAPSED_MS,
    },
    precondition: {
      timeoutMs: config.PRECONDITION_TIMEOUT_MS,
      policy: ENGINE.precondition.policy,
    },
    breaker: ENGINE.breaker,
    commitIntervalMs: ENGINE.commitIntervalMs,
    readinessTimeoutMs: ENGINE.readinessTimeoutMs,
    partitionCheckMs: ENGINE.partitionCheckMs,
    shutdownDeadlineMs: config.SHUTDOWN_DEADLINE_MS,
    handoverTimeoutMs: config.HANDOVER_TIMEOUT_MS,
    deliveryMode: config.DELIVERY_MODE,
    ledgerCommandsPerBizId: ENGINE.ledgerCommandsPerBizId,
    crashLoopLimit: config.CRASH_LOOP_LIMIT,
    ledgerReplayWindowMs: config.LEDGER_REPLAY_WINDOW,
    ledgerMemoryBytes: config.LEDGER_MEMORY_BYTES ?? defaultLedgerMemoryBytes(),
    source: config.EVENT_SOURCE,
  };
}
