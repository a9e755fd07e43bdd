// Where the integration tests get a Kafka broker from, in order of preference:
//   1. KAFKA_BROKERS (comma-separated): a broker someone already runs, e.g. `npm run kafka:start`;
//   2. testcontainers' KafkaContainer, when a Docker engine answers;
//   3. a local KRaft broker on the JVM (scripts/local-kafka), which needs only Java and Maven.
import { KafkaContainer } from '@testcontainers/kafka';
import { getContainerRuntimeClient } from 'testcontainers';
import { startLocalKafka } from '../../scripts/local-kafka/broker.js';

export interface AcquiredKafka {
  brokers: string[];
  stop(): Promise<void>;
  source: 'env' | 'testcontainers' | 'local';
}

// Confluent Platform 7.9 ships Apache Kafka 3.9, the same line as the local broker.
const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.9.0';
// The container's PLAINTEXT listener that KafkaContainer maps to a host port.
const KAFKA_CONTAINER_PORT = 9093;
const DOCKER_PROBE_TIMEOUT_MS = 5_000;

function brokersFromEnv(): string[] | undefined {
  const brokers = (process.env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
  return brokers.length > 0 ? brokers : undefined;
}

/** False when no container runtime answers in time; a hanging socket must not stall the run. */
async function dockerAnswers(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), DOCKER_PROBE_TIMEOUT_MS);
  });
  const probe = getContainerRuntimeClient().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function startContainer(): Promise<AcquiredKafka> {
  const container = await new KafkaContainer(KAFKA_IMAGE).withKraft().start();
  const broker = `${container.getHost()}:${container.getMappedPort(KAFKA_CONTAINER_PORT)}`;
  return {
    brokers: [broker],
    source: 'testcontainers',
    stop: async () => {
      await container.stop();
    },
  };
}

export async function acquireKafka(): Promise<AcquiredKafka> {
  const fromEnv = brokersFromEnv();
  if (fromEnv) return { brokers: fromEnv, source: 'env', stop: async () => {} };
  if (await dockerAnswers()) return startContainer();
  const local = await startLocalKafka();
  return { brokers: local.brokers, source: 'local', stop: local.stop };
}
