/**
 * The bridge's topics on the case's cluster: made as an operator would before deploying
 * (`signing-bridge topics create` with the bridge's environment), and checked to be as asked.
 */
import { ConfigResourceTypes } from 'kafkajs';
import type { LocalKafkaCluster } from '../../scripts/local-kafka/cluster.js';
import { cli } from '../support/cli-process.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';

/**
 * `signing-bridge topics create` with the bridge's environment, once: it returns only when every
 * node lists the topics (src/kafka/topic-agreement.ts), so a failure is a failure.
 */
export async function createTopics(
  brokers: string[],
  prefix: string,
  env: Record<string, string>,
): Promise<void> {
  const run = cli(['topics', 'create'], {
    ...env,
    KAFKA_BROKERS: brokers.join(','),
    TOPIC_PREFIX: prefix,
  });
  const code = await run.exit;
  if (code !== 0) {
    throw new Error(`topics create exited ${code}: ${run.output.stderr} ${run.output.stdout}`);
  }
}

/** How the topics differ from three replicas of each partition and min ISR 2. */
export async function topicShape(
  cluster: LocalKafkaCluster,
  ours: readonly string[],
): Promise<string[]> {
  const { partitions } = await cluster.replicas();
  const wrong = partitions
    .filter((p) => ours.includes(p.topic) && p.replicas.length !== 3)
    .map((p) => `${p.topic}/${p.partition} has ${p.replicas.length} replicas`);
  const admin = harnessKafkaClient([...cluster.brokers]).admin();
  await admin.connect();
  try {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: ours.map((name) => ({
        type: ConfigResourceTypes.TOPIC,
        name,
        configNames: ['min.insync.replicas'],
      })),
    });
    for (const { resourceName, configEntries } of resources) {
      const minIsr = configEntries.find((e) => e.configName === 'min.insync.replicas');
      if (minIsr?.configValue !== '2')
        wrong.push(`${resourceName} has min.insync.replicas ${minIsr?.configValue}`);
    }
  } finally {
    await admin.disconnect();
  }
  return wrong;
}
