// The harness talks to Kafka with kafkajs directly, the way other services would, not through
// the bridge's own src/kafka wrapper.
import { Kafka, logLevel } from 'kafkajs';

export function harnessKafkaClient(brokers: string[]): Kafka {
  return new Kafka({ brokers, clientId: 'harness', logLevel: logLevel.NOTHING });
}
