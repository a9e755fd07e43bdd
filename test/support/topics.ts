// Topics of one's own per test: a fresh prefix, and every topic the bridge uses created with
// the partition count the tests expect.
import { createKafkaConnection } from '../../src/kafka/index.js';
import { type TopicNames, topicNames } from '../../src/schemas/messages/index.js';
import { topicTable } from '../../src/topics/table.js';
import { testLogger } from './test-logger.js';
import { uniqueId } from './unique.js';

export const TEST_PARTITIONS = 4;

/** A topic prefix no other test uses. */
export function uniquePrefix(): string {
  return `${uniqueId('t')}.`;
}

export function uniqueTopics(): TopicNames {
  return topicNames(uniquePrefix());
}

export interface TopicOptions {
  /**
   * The command topics' record times. The table's are the broker's (LogAppendTime); CreateTime
   * keeps the time each producer gives, as topics made by others may: a test that writes an old
   * record to see it refused as expired needs it.
   */
  readonly commandTimestamps?: 'LogAppendTime' | 'CreateTime';
}

/** Every topic the bridge uses, as the topic table sets it up, with `partitions` partitions. */
export async function createTopics(
  brokers: string[],
  topics: TopicNames,
  partitions = TEST_PARTITIONS,
  options: TopicOptions = {},
): Promise<void> {
  const log = testLogger('harness');
  const kafka = createKafkaConnection({
    brokers,
    clientId: 'harness',
    log,
    topicLayout: { partitions },
  });
  const admin = await kafka.admin();
  const { commandTimestamps } = options;
  const table = topicTable(topics, kafka.topicLayout).map((row) =>
    row.role === 'commands' && commandTimestamps
      ? { ...row, configs: { ...row.configs, 'message.timestamp.type': commandTimestamps } }
      : row,
  );
  await admin.ensureTopics(table);
  await admin.disconnect();
}
