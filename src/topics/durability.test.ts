import { describe, expect, it } from 'vitest';
import type { TopicDescription } from '../kafka/index.js';
import { durabilityShortfall } from './durability.js';

const topic = (replicationFactor: number, minInsync?: number): TopicDescription => ({
  topic: 't',
  partitions: 12,
  replicationFactor,
  configs: minInsync === undefined ? {} : { 'min.insync.replicas': String(minInsync) },
});

describe('durabilityShortfall', () => {
  it('when a topic has 3 replicas and min.insync.replicas 2 (or more replicas), then nothing is said', () => {
    expect(durabilityShortfall(topic(3, 2))).toBeUndefined();
    expect(durabilityShortfall(topic(5, 3))).toBeUndefined();
  });

  it.each([
    [1, 1, 'one broker holds all of it'],
    [1, undefined, 'one broker holds all of it'],
    [3, 1, 'a write counts as done once one broker has it'],
    [2, 1, 'a write counts as done once one broker has it'],
    [3, 3, 'every write stops while one of its brokers is down'],
    [2, 2, 'every write stops while one of its brokers is down'],
  ])(
    'when a topic has replication %i and min.insync.replicas %s, then it falls short: %s',
    (replication, minInsync, why) => {
      const said = durabilityShortfall(topic(replication, minInsync));
      expect(said).toContain(
        `replication ${replication} and min.insync.replicas ${minInsync ?? 1}: ${why}`,
      );
      expect(said).toContain('TOPIC_REPLICATION_FACTOR and TOPIC_MIN_INSYNC_REPLICAS');
    },
  );
});
