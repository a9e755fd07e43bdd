// When a run has settled, as facts: every command partition committed up to its end (no command
// will run again), then the events topic read up to where it ended at that moment (every event
// the run published, late repeats included, is in the collector). Tests check "nothing more"
// after this, not after a sleep.
import type { TopicNames } from '../../src/schemas/messages/index.js';
import type { EventCollector } from './event-collector.js';
import { harnessKafkaClient } from './harness-kafka-client.js';
import { waitUntil } from './wait.js';

/** Each look asks the broker for every command partition's end and committed offset. */
const POLL_MS = 100;

/** Every sentinel written in this test process, by `partition@offset` of the events topic. */
const sentinels = new Set<string>();

/** Every command partition whose committed offset is behind its end, as `topic/partition`. */
export async function uncommitted(
  brokers: string[],
  groupId: string,
  topics: TopicNames,
): Promise<string[]> {
  const admin = harnessKafkaClient(brokers).admin();
  await admin.connect();
  try {
    const behind: string[] = [];
    for (const topic of Object.values(topics.commands)) {
      const ends = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      for (const { partition, high } of ends) {
        const at = committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
        if (high !== '0' && at !== high) behind.push(`${topic}/${partition} at ${at} of ${high}`);
      }
    }
    return behind;
  } finally {
    await admin.disconnect();
  }
}

export async function untilCommitted(
  brokers: string[],
  groupId: string,
  topics: TopicNames,
  timeoutMs = 60_000,
): Promise<void> {
  await waitUntil(() => uncommitted(brokers, groupId, topics), {
    until: (behind) => behind.length === 0,
    what: 'every command partition committed to its end',
    timeoutMs,
    intervalMs: POLL_MS,
  });
}

/**
 * Every command committed to its end, then every event published until then read: a sentinel
 * record (no value, no headers) written to each events partition after that has reached the
 * collector. (The topic's end offsets cannot say so: in exactly-once mode a transaction's commit
 * marker takes an offset that no subscriber ever reads.) Every record the collector read that was
 * no event must be one of the sentinels.
 */
export async function untilSettled(options: {
  brokers: string[];
  groupId: string;
  topics: TopicNames;
  collector: EventCollector;
  timeoutMs?: number;
}): Promise<void> {
  const { brokers, groupId, topics, collector, timeoutMs = 60_000 } = options;
  await untilCommitted(brokers, groupId, topics, timeoutMs);
  const kafka = harnessKafkaClient(brokers);
  const admin = kafka.admin();
  await admin.connect();
  const partitions = await admin.fetchTopicOffsets(topics.events).finally(() => admin.disconnect());
  const producer = kafka.producer();
  await producer.connect();
  const written = await producer
    .send({
      topic: topics.events,
      messages: partitions.map(({ partition }) => ({ partition, value: null })),
    })
    .finally(() => producer.disconnect());
  for (const { partition, baseOffset } of written) {
    sentinels.add(`${partition}@${baseOffset}`);
  }
  await collector.waitUntil(
    () =>
      written.every(
        ({ partition, baseOffset }) =>
          (collector.positions.get(partition) ?? 0n) > BigInt(baseOffset ?? '0'),
      ),
    timeoutMs,
    'the events topic read up to a sentinel on every partition',
  );
  const strays = collector.notEvents.filter((at) => !sentinels.has(at));
  if (strays.length > 0) throw new Error(`records that are no event at ${strays.join(', ')}`);
}
