/**
 * Where the SDK's producer and subscriber reach Kafka: broker settings, or a kafkajs client the
 * application configured itself (its TLS, SASL and logging then apply). Either way the SDK talks
 * to Kafka through src/kafka, the one module that imports kafkajs.
 */
import pino, { type Logger } from 'pino';
import {
  createKafkaConnection,
  type KafkaConnectionOptions,
  type KafkajsClient,
  type KafkaTools,
  kafkaToolsOver,
} from '../kafka/index.js';

export type BrokerSettings = Omit<
  KafkaConnectionOptions,
  'clientId' | 'log' | 'topicLayout' | 'transactionTimeoutMs'
> & {
  /** Default `signing-bridge-sdk`. */
  readonly clientId?: string;
  /** Receives kafkajs' own log lines (warnings and up); default: none. */
  readonly log?: Logger;
};

export type KafkaTarget = BrokerSettings | { readonly kafka: KafkajsClient };

export function kafkaToolsFor(target: KafkaTarget): KafkaTools {
  if ('kafka' in target) return kafkaToolsOver(target.kafka);
  const { clientId = 'signing-bridge-sdk', log = pino({ level: 'silent' }), ...rest } = target;
  return createKafkaConnection({ ...rest, clientId, log });
}
