/**
 * What the consumer fetches, decided in one place from the phase of every assigned partition and
 * every hold on consumption: a command partition while it is active and nothing holds it back;
 * a ledger partition while it is being restored. Everything else is paused, so nothing is fetched
 * that would have to be fetched again.
 */
import type { TopicPartitions } from '../kafka/index.js';
import { isRestoring, type Phase } from './partition-machine.js';

/**
 * Why consumption is held back: too much in hand (per command topic, so that a full class of
 * commands does not stop the others), the circuit breaker open, the bridge stopping, or the
 * co-partitioned topics' partition counts changed while it ran (consumers/partition-watch.ts).
 */
export interface Holds {
  readonly all: ReadonlySet<'breaker' | 'stopping'>;
  /** Command topics held back for backpressure. */
  readonly topics: ReadonlySet<string>;
  /**
   * Command partitions from this number on are held: the topics grew past the count the bridge
   * places records by, and a bizId on one of those partitions has no ledger entry there. The
   * partitions below still run (a record whose key now maps elsewhere is forwarded by the count
   * at start), so they drain before `topics grow`.
   */
  readonly unplaceableFrom?: number | undefined;
}

export interface FetchPlan {
  readonly resume: readonly TopicPartitions[];
  readonly pause: readonly TopicPartitions[];
}

export function fetchPlan(
  phases: ReadonlyMap<number, Phase>,
  topics: { readonly commands: readonly string[]; readonly ledger: string },
  holds: Holds,
): FetchPlan {
  const active: number[] = [];
  const inactive: number[] = [];
  const restoring: number[] = [];
  const notRestoring: number[] = [];
  for (const [partition, phase] of phases) {
    (phase === 'active' ? active : inactive).push(partition);
    (isRestoring(phase) ? restoring : notRestoring).push(partition);
  }
  const resume: TopicPartitions[] = [];
  const pause: TopicPartitions[] = [];
  const add = (list: TopicPartitions[], topic: string, partitions: number[]) => {
    if (partitions.length > 0) list.push({ topic, partitions });
  };
  const limit = holds.unplaceableFrom ?? Number.POSITIVE_INFINITY;
  const placeable = active.filter((partition) => partition < limit);
  const unplaceable = active.filter((partition) => partition >= limit);
  for (const topic of topics.commands) {
    const held = holds.all.size > 0 || holds.topics.has(topic);
    add(resume, topic, held ? [] : placeable);
    add(pause, topic, held ? [...active, ...inactive] : [...unplaceable, ...inactive]);
  }
  add(resume, topics.ledger, restoring);
  add(pause, topics.ledger, notRestoring);
  return { resume, pause };
}
