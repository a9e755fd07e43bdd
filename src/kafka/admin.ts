import type { Kafka } from 'kafkajs';
import type { TopicAdmin, TopicSpec } from './types.js';

export async function connectAdmin(kafka: Kafka): Promise<TopicAdmin> {
  const admin = kafka.admin();
  await admin.connect();
  return {
    async ensureTopics(specs: readonly TopicSpec[]) {
      const existing = new Set(await admin.listTopics());
      const missing = specs.filter((spec) => !existing.has(spec.topic));
      if (missing.length > 0) {
        // When another instance creates them at the same moment, kafkajs returns false: fine.
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map(({ topic, partitions, compacted }) => ({
            topic,
            numPartitions: partitions,
            configEntries: compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [],
          })),
        });
      }
      const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.topic) });
      return new Map(topics.map(({ name, partitions }) => [name, partitions.length]));
    },
    disconnect: () => admin.disconnect(),
  };
}
