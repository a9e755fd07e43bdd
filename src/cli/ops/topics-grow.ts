/**
 * `signing-bridge topics grow --partitions N`: every co-partitioned topic (the command topics and
 * the ledger) grown to N together, with the bridge's group stopped, and each ledger entry moved
 * to the partition its bizId has under N, so a bizId's commands and its entry stay on one
 * partition number (docs/design.md, "Partition counts").
 *
 * Refused, changing nothing, while the group has members (they place records by the old count)
 * or has not committed every command record (one left behind would run after newer records of
 * its bizId written to the new partition).
 */
import { TopicsGrowRefused } from '../../errors.js';
import { type InboundRecord, type KafkaTools, keyPartition } from '../../kafka/index.js';
import { entryTombstone } from '../../ledger/index.js';
import type { TopicNames } from '../../schemas/messages/index.js';

export interface GrowResult {
  readonly from: number;
  readonly to: number;
  /** Ledger entries written to their new partition (and deleted from the old one). */
  readonly moved: number;
}

// The ledger's own records (ownership markers, the careful and forwarded marks) are keyed with a
// leading space, which no bizId has: they belong to their partition and stay.
const isEntryKey = (key: string) => !key.startsWith(' ');

export async function growTopics(
  tools: KafkaTools,
  topics: TopicNames,
  groupId: string,
  to: number,
): Promise<GrowResult> {
  const coPartitioned = [...Object.values(topics.commands), topics.ledger];
  const admin = await tools.clusterAdmin();
  try {
    const described = await admin.describeTopics(coPartitioned, []);
    const partitions = Object.fromEntries(
      [...described.values()].map((d) => [d.topic, d.partitions]),
    );
    const refuse = (
      reason: TopicsGrowRefused['details']['reason'],
      why: string,
      lag?: Record<string, number>,
    ) =>
      new TopicsGrowRefused(`topics not grown: ${why}`, {
        details: { reason, groupId, partitions, ...(lag ? { lag } : {}) },
      });
    const counts = new Set(Object.values(partitions));
    const [from] = counts;
    if (counts.size !== 1 || from === undefined || described.size !== coPartitioned.length) {
      throw refuse(
        'not-co-partitioned',
        'the command topics and the ledger do not share one partition count; `topics check` lists them',
      );
    }
    if (to <= from)
      throw refuse(
        'not-larger',
        `they have ${from} partitions; give --partitions larger than that`,
      );
    if ((await admin.groupMembers(groupId)) > 0) {
      throw refuse(
        'group-active',
        `group ${groupId} has members: stop every instance of the bridge first`,
      );
    }
    const lag = await uncommitted(admin, groupId, Object.values(topics.commands));
    if (Object.keys(lag).length > 0) {
      throw refuse(
        'lag',
        `group ${groupId} has not committed every command record: start the bridge with the producers stopped until the lag is 0, stop it, then grow`,
        lag,
      );
    }
    const entries = await ledgerEntries(tools, topics.ledger);
    await admin.createPartitions(coPartitioned, to);
    const moved = await moveEntries(tools, topics.ledger, entries, to);
    return { from, to, moved };
  } finally {
    await admin.disconnect();
  }
}

async function uncommitted(
  admin: Awaited<ReturnType<KafkaTools['clusterAdmin']>>,
  groupId: string,
  commandTopics: readonly string[],
): Promise<Record<string, number>> {
  const lag: Record<string, number> = {};
  for (const topic of commandTopics) {
    const committed = await admin.committed(groupId, topic);
    for (const { partition, start, end } of await admin.ranges(topic)) {
      const from = BigInt(committed.get(partition) ?? start);
      const behind = BigInt(end) - from;
      if (behind > 0n) lag[`${topic}/${partition}`] = Number(behind);
    }
  }
  return lag;
}

/** The last record of every bizId's entry, with the partition it is on (tombstones drop it). */
async function ledgerEntries(
  tools: KafkaTools,
  ledger: string,
): Promise<Map<string, InboundRecord>> {
  const latest = new Map<string, InboundRecord>();
  const reader = tools.reader({ topics: [ledger], start: 'beginning', toEnd: true });
  await reader.start((records) => {
    for (const record of records) {
      const key = record.key?.toString();
      if (key === undefined || !isEntryKey(key)) continue;
      if (record.value === null) latest.delete(key);
      else latest.set(key, record);
    }
  });
  await reader.done;
  return latest;
}

/** Each entry on its new partition first, then its tombstone on the old one: never lost between. */
async function moveEntries(
  tools: KafkaTools,
  ledger: string,
  entries: ReadonlyMap<string, InboundRecord>,
  to: number,
): Promise<number> {
  const moving = [...entries].filter(
    ([key, record]) => keyPartition(Buffer.from(key), to) !== record.partition,
  );
  if (moving.length === 0) return 0;
  const producer = await tools.positionedProducer();
  try {
    for (let i = 0; i < moving.length; i += 500) {
      const chunk = moving.slice(i, i + 500);
      await producer.send(
        chunk.map(([key, record]) => ({
          topic: ledger,
          partition: keyPartition(Buffer.from(key), to),
          key,
          value: record.value,
        })),
      );
      await producer.send(
        chunk.map(([key, record]) => entryTombstone(ledger, record.partition, key)),
      );
    }
  } finally {
    await producer.disconnect();
  }
  return moving.length;
}
