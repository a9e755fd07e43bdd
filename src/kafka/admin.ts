import kafkajs, { type Kafka } from 'kafkajs';
import type { TopicAdmin, TopicSpec } from './types.js';

// Not among the names Node finds in kafkajs' CommonJS exports: read off the module itself.
const { ConfigResourceTypes } = kafkajs;
// The broker's default message.max.bytes, should a topic not say.
const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

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
    async maxMessageBytes(topics: readonly string[]) {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((name) => ({
          type: ConfigResourceTypes.TOPIC,
          name,
          configNames: ['max.message.bytes'],
        })),
      });
      return new Map(
        resources.map(({ resourceName, configEntries }) => {
          const value = configEntries.find((e) => e.configName === 'max.message.bytes');
          return [resourceName, Number(value?.configValue ?? DEFAULT_MAX_MESSAGE_BYTES)];
        }),
      );
    },
    disconnect: () => admin.disconnect(),
  };
}
