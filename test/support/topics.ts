// Topics of one's own per test: a fresh prefix, and every topic the bridge uses created with
// the partition count the tests expect.
import { randomUUID } from 'node:crypto';
import { createKafkaConnection } from '../../src/kafka/index.js';
import { type TopicNames, topicNames } from '../../src/schemas/messages/index.js';
import { testLogger } from './test-logger.js';

export const TEST_PARTITIONS = 4;

/** A topic prefix no other test uses. */
export function uniquePrefix(): string {
  return `t-${randomUUID().slice(0, 8)}.`;
}

export function uniqueTopics(): TopicNames {
  return topicNames(uniquePrefix());
}

export async function createTopics(
  brokers: string[],
  topics: TopicNames,
  partitions = TEST_PARTITIONS,
): Promise<void> {
  const kafka = createKafkaConnection({ brokers, clientId: 'harness', log: testLogger('harness') });
  const admin = await kafka.admin();
  const spec = (topic: string, compacted = false) => ({ topic, partitions, compacted });
  await admin.ensureTopics([
    ...Object.values(topics.commands).map((topic) => spec(topic)),
    spec(topics.ledger, true),
    spec(topics.events),
    spec(topics.deadLetter),
  ]);
  await admin.disconnect();
}
