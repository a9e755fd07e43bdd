import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import type { Logger } from 'pino';
import { connectAdmin } from './admin.js';
import { kafkajsClientConfig } from './client-config.js';
import type { KafkaClientSettings } from './client-settings.js';
import { KafkajsGroupConsumer } from './group-consumer.js';
import { kafkajsLogCreator } from './log-adapter.js';
import { preflight } from './preflight.js';
import { connectProducer, connectTransactionalProducer } from './producer.js';
import type { KafkaConnection } from './types.js';

export interface KafkaConnectionOptions extends KafkaClientSettings {
  log: Logger;
  /** Partitions of the topics the bridge creates; default 12. */
  topicPartitions?: number;
  /**
   * How long a transaction may stay open before the broker aborts it; default 10 s. It bounds
   * how long a crashed instance's open transaction holds back read_committed readers.
   */
  transactionTimeoutMs?: number;
}

export interface KafkajsConnection extends KafkaConnection {
  /**
   * Connects once, logging in as every other connection will, then disconnects. Rejects with
   * KafkaAuthenticationFailed at the first refusal by TLS or SASL, with KafkaUnreachable when
   * no broker answers a few attempts.
   */
  preflight(): Promise<void>;
}

export function createKafkaConnection(options: KafkaConnectionOptions): KafkajsConnection {
  const { log, topicPartitions = 12, transactionTimeoutMs = 10_000 } = options;
  const config = {
    ...kafkajsClientConfig(options),
    logLevel: log.isLevelEnabled('debug') ? logLevel.INFO : logLevel.WARN,
    logCreator: kafkajsLogCreator(log),
  } satisfies KafkaConfig;
  const kafka = new Kafka(config);
  return {
    topicPartitions,
    preflight: () => preflight(config),
    admin: () => connectAdmin(kafka),
    consumer: (consumerOptions) => new KafkajsGroupConsumer(kafka, consumerOptions),
    producer: ({ transactionalId } = {}) =>
      transactionalId === undefined
        ? connectProducer(kafka)
        : connectTransactionalProducer(kafka, transactionalId, transactionTimeoutMs),
  };
}
