/**
 * Which partitions a send that keeps failing is stuck on, and why, from the cluster's metadata:
 * kafkajs' error says what Kafka answered (NOT_ENOUGH_REPLICAS, KAFKA_STORAGE_ERROR,
 * UNKNOWN_TOPIC_OR_PARTITION, no leader...) but not for which partition. The bridge asks when its
 * writes have failed for a while (consumers/write-watch.ts) and names what it finds in /readyz,
 * its log and a metric.
 */
import { keyPartition } from './murmur2.js';
import type { OutboundRecord, TopicHealth } from './types.js';

export type StallProblem =
  | 'topic-missing'
  | 'partition-missing'
  | 'no-leader'
  | 'under-min-isr'
  | 'offline-replica';

/** A partition written to that cannot take writes now, or the whole topic (`partition` absent). */
export interface PartitionStall {
  readonly topic: string;
  readonly partition?: number;
  readonly problem: StallProblem;
  /** What was found and what to check, in a sentence. */
  readonly detail: string;
}

/**
 * The stalls among the partitions `records` go to. `health` describes each of their topics;
 * a topic it lacks does not exist. A record without a partition goes where its key's murmur2
 * puts it (as the producer's partitioner does); one without either, to any.
 */
export function stallsOf(
  records: readonly OutboundRecord[],
  health: ReadonlyMap<string, TopicHealth>,
): PartitionStall[] {
  const stalls: PartitionStall[] = [];
  for (const [topic, partitions] of writtenPartitions(records, health)) {
    const described = health.get(topic);
    if (!described) {
      stalls.push({
        topic,
        problem: 'topic-missing',
        detail: `${topic} does not exist (deleted?): create it again (signing-bridge topics create); what it held is gone`,
      });
      continue;
    }
    for (const partition of partitions ?? described.partitions.map((p) => p.partition)) {
      const stall = stallOf(topic, partition, described);
      if (stall) stalls.push(stall);
    }
  }
  return stalls;
}

/** Each topic written to, with its partitions (undefined: any of them). */
function writtenPartitions(
  records: readonly OutboundRecord[],
  health: ReadonlyMap<string, TopicHealth>,
): Map<string, Set<number> | undefined> {
  const written = new Map<string, Set<number> | undefined>();
  for (const record of records) {
    const { topic } = record;
    if (written.has(topic) && written.get(topic) === undefined) continue;
    const count = health.get(topic)?.partitions.length ?? 0;
    const partition =
      record.partition ??
      (record.key === null || count === 0 ? undefined : keyPartition(keyBytes(record.key), count));
    if (partition === undefined) written.set(topic, undefined);
    else written.set(topic, (written.get(topic) ?? new Set()).add(partition));
  }
  return written;
}

function stallOf(
  topic: string,
  partition: number,
  { partitions, minInsyncReplicas, brokers }: TopicHealth,
): PartitionStall | undefined {
  const where = `${topic} partition ${partition}`;
  const state = partitions.find((p) => p.partition === partition);
  if (!state) {
    return {
      topic,
      partition,
      problem: 'partition-missing',
      detail: `${where} does not exist (${topic} has ${partitions.length}): was the topic created again with fewer?`,
    };
  }
  const { leader, replicas, isr, offlineReplicas } = state;
  const down = replicas.filter((id) => !brokers.includes(id));
  const on = `replicas on brokers ${list(replicas)}, in sync ${list(isr)}${down.length > 0 ? `, brokers ${list(down)} not running` : ''}`;
  // KRaft lists a replica on a broker that is stopped or fenced as offline too: only a replica on
  // a broker the cluster still lists is one whose log directory failed.
  const failedDisks = offlineReplicas.filter((id) => brokers.includes(id));
  if (failedDisks.length > 0) {
    return {
      topic,
      partition,
      problem: 'offline-replica',
      detail: `${where}: the log directory of its replica on broker ${list(failedDisks)} failed (KAFKA_STORAGE_ERROR: a full or failed disk); ${on}`,
    };
  }
  if (leader < 0) {
    return {
      topic,
      partition,
      problem: 'no-leader',
      detail: `${where} has no leader: its ${on}; start those brokers, or move the partition to brokers that run (kafka-reassign-partitions)`,
    };
  }
  if (isr.length < minInsyncReplicas) {
    return {
      topic,
      partition,
      problem: 'under-min-isr',
      detail: `${where}: ${isr.length} replica(s) in sync, below its min.insync.replicas ${minInsyncReplicas} (NOT_ENOUGH_REPLICAS): ${on}; bring the brokers back`,
    };
  }
  return undefined;
}

function list(brokers: readonly number[]): string {
  return brokers.length === 0 ? 'none' : brokers.join(', ');
}

function keyBytes(key: Buffer | string): Buffer {
  return typeof key === 'string' ? Buffer.from(key) : key;
}
