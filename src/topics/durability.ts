/**
 * Whether a topic keeps what the bridge writes through a broker's loss, as docs/deployment.md
 * recommends for production: 3 replicas and min.insync.replicas 2. The bridge's producer waits
 * for every in-sync replica (acks=all): with 2 required, an acknowledged write is on two brokers
 * and one broker may be down without stopping writes. A topic created without
 * TOPIC_REPLICATION_FACTOR and TOPIC_MIN_INSYNC_REPLICAS has the broker's defaults (1 and 1 on a
 * stock broker): one disk holds every ledger entry and event. Said at start and by `topics check`,
 * which change nothing (a topic that exists keeps its replication until reassigned).
 */
import type { TopicDescription } from '../kafka/index.js';

export const RECOMMENDED_REPLICATION_FACTOR = 3;
export const RECOMMENDED_MIN_INSYNC_REPLICAS = 2;

/** What falls short of the recommendation, in a sentence naming the values; undefined if none. */
export function durabilityShortfall({
  replicationFactor,
  configs,
}: TopicDescription): string | undefined {
  const minInsync = Number(configs['min.insync.replicas'] ?? 1);
  const why =
    replicationFactor === 1
      ? 'one broker holds all of it'
      : minInsync >= replicationFactor
        ? 'every write stops while one of its brokers is down'
        : minInsync < RECOMMENDED_MIN_INSYNC_REPLICAS
          ? 'a write counts as done once one broker has it'
          : replicationFactor < RECOMMENDED_REPLICATION_FACTOR
            ? 'fewer copies than recommended'
            : undefined;
  if (why === undefined) return undefined;
  return `replication ${replicationFactor} and min.insync.replicas ${minInsync}: ${why}; production wants ${RECOMMENDED_REPLICATION_FACTOR} and ${RECOMMENDED_MIN_INSYNC_REPLICAS} (TOPIC_REPLICATION_FACTOR and TOPIC_MIN_INSYNC_REPLICAS for topics the bridge creates; kafka-reassign-partitions and kafka-configs for one that exists)`;
}
