import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import type { Logger } from 'pino';
import { connectAdmin } from './admin.js';
import { kafkajsClientConfig } from './client-config.js';
import type { KafkaClientSettings } from './client-settings.js';
import { KafkajsGroupConsumer } from './group-consumer.js';
import { kafkajsLogCreator } from './log-adapter.js';
import { connectExclusiveProducer, connectPositionedProducer } from './positioned-producer.js';
import { preflight } from './preflight.js';
import { connectProducer, connectTransactionalProducer, fenceTransactionalId } from './producer.js';
import type { KafkaTools } from './tool-types.js';
import { type ClientAt, clientsAt } from './topic-agreement.js';
import { createTopicReader } from './topic-reader.js';
import type { TopicLayout } from './types.js';

export interface KafkaConnectionOptions extends KafkaClientSettings {
  log: Logger;
  /** How the topics are set up, in part or whole: the topic table (src/topics) fills in the rest. */
  topicLayout?: Partial<TopicLayout>;
  /**
   * How long a transaction may stay open before the broker aborts it; default 10 s. It bounds
   * how long a crashed instance's open transaction holds back read_committed readers.
   */
  transactionTimeoutMs?: number;
}

/** The bridge's and the tools' view of Kafka, and a first connection to try the login with. */
export interface KafkajsConnection extends KafkaTools {
  /**
   * Connects once, logging in as every other connection will, then disconnects. Rejects with
   * KafkaAuthenticationFailed at the first refusal by TLS or SASL, with KafkaUnreachable when
   * no broker answers a few attempts.
   */
  preflight(): Promise<void>;
}

export function createKafkaConnection(options: KafkaConnectionOptions): KafkajsConnection {
  const { log } = options;
  const config = {
    ...kafkajsClientConfig(options),
    logLevel: log.isLevelEnabled('debug') ? logLevel.INFO : logLevel.WARN,
    logCreator: kafkajsLogCreator(log),
  } satisfies KafkaConfig;
  const tools = kafkaToolsOver(new Kafka(config), options, clientsAt(config));
  return { ...tools, preflight: () => preflight(config) };
}

/**
 * The bridge's and the tools' view of Kafka over a kafkajs client configured elsewhere.
 * `clientAt`, clients pinned to one broker with the same settings, lets creating topics wait
 * until every broker lists them (admin.ts).
 */
export function kafkaToolsOver(
  kafka: Kafka,
  options: Pick<KafkaConnectionOptions, 'topicLayout' | 'transactionTimeoutMs'> = {},
  clientAt?: ClientAt,
): KafkaTools {
  const { transactionTimeoutMs = 10_000 } = options;
  const admin = () => connectAdmin(kafka, clientAt);
  return {
    topicLayout: options.topicLayout ?? {},
    admin,
    clusterAdmin: admin,
    consumer: (consumerOptions) => new KafkajsGroupConsumer(kafka, consumerOptions),
    producer: ({ transactionalId } = {}) =>
      transactionalId === undefined
        ? connectProducer(kafka)
        : connectTransactionalProducer(kafka, transactionalId, transactionTimeoutMs),
    fence: (transactionalId) => fenceTransactionalId(kafka, transactionalId, transactionTimeoutMs),
    positionedProducer: () => connectPositionedProducer(kafka),
    exclusiveProducer: (transactionalId) => connectExclusiveProducer(kafka, transactionalId),
    reader: (readerOptions) => createTopicReader(kafka, admin, readerOptions),
  };
}
