/**
 * `signing-bridge topics grow --partitions N`: every co-partitioned topic (the command topics and
 * the ledger) brought to N, with the bridge's group stopped, and each ledger entry moved to the
 * partition its bizId has under N, so a bizId's commands and its entry stay on one partition
 * number (docs/design.md, "Partition counts").
 *
 * The topics may have different counts (the command topics grown alone by hand): N must be at
 * least the largest, and only the topics below it grow. The count the bridge placed records by
 * is the smallest: partitions at or above it were never consumed, so their records wait for the
 * grow; records on the partitions below it must all be committed (one left behind could be
 * forwarded to its new partition behind newer records of its bizId), and a held bridge still
 * runs those. With every topic at N already (a grow cut off before its entries moved) it only
 * moves the entries, which is idempotent. Refused, changing nothing, while the group has members.
 *
 * `acceptLag` is the way out when those records cannot drain: the bridge stopped (or crashed)
 * with records left below the smallest count, and it will not start on mixed counts. After the
 * grow the bridge forwards each of them to its bizId's partition under N, where it runs behind
 * what that partition already holds: a bizId with records on both sides may see its newer ones
 * first. The operator accepts that by asking for it; the lag is still reported.
 */
import { TopicsGrowRefused } from '../../errors.js';
import {
  type ClusterAdmin,
  type InboundRecord,
  type KafkaTools,
  keyPartition,
  type OutboundRecord,
  SESSION_TIMEOUT_MS,
} from '../../kafka/index.js';
import { entryTombstone } from '../../ledger/index.js';
import type { TopicNames } from '../../schemas/messages/index.js';

export interface GrowResult {
  /** The topics that grew (none when every one had N already). */
  readonly grown: readonly string[];
  /** Ledger entries written to their new partition (and deleted from the old one). */
  readonly moved: number;
  /** Records not run below the smallest count, per `topic/partition`, grown over by acceptLag. */
  readonly lag: Readonly<Record<string, number>>;
}

type Reason = TopicsGrowRefused['details']['reason'];

// The ledger's own records (ownership markers, the careful and forwarded marks) are keyed with a
// leading space, which no bizId has: they belong to their partition and stay.
const isEntryKey = (key: string) => !key.startsWith(' ');

export interface GrowOptions {
  /** Grow although records below the smallest count were not run (see above). */
  readonly acceptLag?: boolean;
}

export async function growTopics(
  tools: KafkaTools,
  topics: TopicNames,
  groupId: string,
  to: number,
  { acceptLag = false }: GrowOptions = {},
): Promise<GrowResult> {
  const coPartitioned = [...Object.values(topics.commands), topics.ledger];
  const admin = await tools.clusterAdmin();
  try {
    const described = await admin.describeTopics(coPartitioned, []);
    const partitions = Object.fromEntries(
      [...described.values()].map((d) => [d.topic, d.partitions]),
    );
    const refuse = (reason: Reason, why: string, lag?: Record<string, number>) =>
      new TopicsGrowRefused(`topics not grown: ${why}`, {
        details: { reason, groupId, partitions, ...(lag ? { lag } : {}) },
      });
    const missing = coPartitioned.filter((topic) => partitions[topic] === undefined);
    if (missing.length > 0) {
      throw refuse('missing', `${missing.join(', ')} missing; \`topics create\` makes them`);
    }
    const counts = Object.values(partitions);
    const from = Math.min(...counts);
    const largest = Math.max(...counts);
    if (to < largest) {
      throw refuse(
        'smaller',
        `a topic has ${largest} partitions; give --partitions ${largest} or more`,
      );
    }
    const grown = coPartitioned.filter((topic) => (partitions[topic] ?? to) < to);
    // Asked before the members, so that run while the bridge drains it says when that is done.
    const lag =
      grown.length > 0
        ? await uncommitted(admin, groupId, Object.values(topics.commands), from)
        : {};
    if (Object.keys(lag).length > 0 && !acceptLag) {
      throw refuse(
        'lag',
        `group ${groupId} has not committed every command record on the partitions below ${from}: with the producers stopped, leave the bridge running until this no longer refuses for lag, stop it, then grow (or, if it cannot drain them, grow with --accept-lag)`,
        lag,
      );
    }
    if ((await admin.groupMembers(groupId)) > 0) {
      throw refuse(
        'group-active',
        `group ${groupId} has members: stop every instance of the bridge first (one stopped in the last few seconds may still be listed until its session of ${SESSION_TIMEOUT_MS / 1_000} s ends: run this again then)`,
      );
    }
    const entries = await ledgerEntries(tools, topics.ledger);
    if (grown.length > 0) await admin.createPartitions(grown, to);
    const moved = await moveEntries(tools, planMoves(topics.ledger, entries, to));
    return { grown, moved, lag };
  } finally {
    await admin.disconnect();
  }
}

/** Records not committed yet on the partitions the bridge consumed: those below `below`. */
async function uncommitted(
  admin: ClusterAdmin,
  groupId: string,
  commandTopics: readonly string[],
  below: number,
): Promise<Record<string, number>> {
  const lag: Record<string, number> = {};
  for (const topic of commandTopics) {
    const committed = await admin.committed(groupId, topic);
    for (const { partition, start, end } of await admin.ranges(topic)) {
      if (partition >= below) continue;
      const behind = BigInt(end) - BigInt(committed.get(partition) ?? start);
      if (behind > 0n) lag[`${topic}/${partition}`] = Number(behind);
    }
  }
  return lag;
}

/** Per bizId, the last record of its entry on each partition that still holds one. */
export type LedgerEntries = ReadonlyMap<string, ReadonlyMap<number, InboundRecord>>;

// Per partition, not per key: a moved entry's copy and its old partition's tombstone are read in
// no set order, and the tombstone must not erase the copy.
async function ledgerEntries(tools: KafkaTools, ledger: string): Promise<LedgerEntries> {
  const live = new Map<string, Map<number, InboundRecord>>();
  const reader = tools.reader({ topics: [ledger], start: 'beginning', toEnd: true });
  await reader.start((records) => {
    for (const record of records) {
      const key = record.key?.toString();
      if (key === undefined || !isEntryKey(key)) continue;
      const held = live.get(key) ?? new Map<number, InboundRecord>();
      if (record.value === null) held.delete(record.partition);
      else held.set(record.partition, record);
      live.set(key, held);
    }
  });
  await reader.done;
  return live;
}

export interface MovePlan {
  /** Entries written to their bizId's partition under the new count. */
  readonly copies: readonly OutboundRecord[];
  /** Then the entries left on other partitions deleted. */
  readonly tombstones: readonly OutboundRecord[];
}

/**
 * Where an entry is on its bizId's partition already, that one is kept (a copy of an earlier run,
 * or written by a bridge since): the others are stale. Otherwise the newest elsewhere is copied
 * there. So a second run after one cut off finishes it, and after one that completed does nothing.
 */
export function planMoves(ledger: string, entries: LedgerEntries, to: number): MovePlan {
  const copies: OutboundRecord[] = [];
  const tombstones: OutboundRecord[] = [];
  for (const [key, held] of entries) {
    const target = keyPartition(Buffer.from(key), to);
    const elsewhere = [...held.values()].filter((record) => record.partition !== target);
    const newest = elsewhere.reduce<InboundRecord | undefined>(
      (latest, record) =>
        latest === undefined || BigInt(record.timestamp) > BigInt(latest.timestamp)
          ? record
          : latest,
      undefined,
    );
    if (!held.has(target) && newest !== undefined) {
      copies.push({ topic: ledger, partition: target, key, value: newest.value });
    }
    for (const { partition } of elsewhere) tombstones.push(entryTombstone(ledger, partition, key));
  }
  return { copies, tombstones };
}

/** Every copy before any tombstone: an entry is never missing between. */
async function moveEntries(tools: KafkaTools, { copies, tombstones }: MovePlan): Promise<number> {
  if (copies.length === 0 && tombstones.length === 0) return 0;
  const producer = await tools.positionedProducer();
  try {
    for (const records of [copies, tombstones]) {
      for (let i = 0; i < records.length; i += 500) await producer.send(records.slice(i, i + 500));
    }
  } finally {
    await producer.disconnect();
  }
  return copies.length;
}
