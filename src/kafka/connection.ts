import { Kafka, logLevel } from 'kafkajs';
import type { Logger } from 'pino';
import { connectAdmin } from './admin.js';
import { KafkajsGroupConsumer } from './group-consumer.js';
import { kafkajsLogCreator } from './log-adapter.js';
import { connectProducer, connectTransactionalProducer } from './producer.js';
import type { KafkaConnection } from './types.js';

export interface KafkaConnectionOptions {
  brokers: string[];
  clientId: string;
  log: Logger;
  /** Partitions of the topics the bridge creates; default 12. */
  topicPartitions?: number;
  /**
   * How long a transaction may stay open before the broker aborts it; default 10 s. It bounds
   * how long a crashed instance's open transaction holds back read_committed readers.
   */
  transactionTimeoutMs?: number;
}

export function createKafkaConnection(options: KafkaConnectionOptions): KafkaConnection {
  const { brokers, clientId, log, topicPartitions = 12, transactionTimeoutMs = 10_000 } = options;
  const kafka = new Kafka({
    brokers,
    clientId,
    logLevel: log.isLevelEnabled('debug') ? logLevel.INFO : logLevel.WARN,
    logCreator: kafkajsLogCreator(log),
  });
  return {
    topicPartitions,
    admin: () => connectAdmin(kafka),
    consumer: (consumerOptions) => new KafkajsGroupConsumer(kafka, consumerOptions),
    producer: ({ transactionalId } = {}) =>
      transactionalId === undefined
        ? connectProducer(kafka)
        : connectTransactionalProducer(kafka, transactionalId, transactionTimeoutMs),
  };
}
