import type { GroupConsumer, TopicPartitions } from '../kafka/index.js';
import type { Ownership } from './ownership.js';

export type HoldReason = 'backpressure' | 'breaker' | 'stopping';

/**
 * Decides, partition by partition, what the consumer fetches: a command partition while its
 * lease is active and nothing holds consumption back; a ledger partition while it is restored.
 * Everything else is paused, so nothing is fetched that would have to be fetched again.
 */
export class FetchGate {
  readonly #consumer: Pick<GroupConsumer, 'pause' | 'resume'>;
  readonly #commandTopics: readonly string[];
  readonly #ledgerTopic: string;
  readonly #ownership: Ownership;
  readonly #holds = new Set<HoldReason>();

  constructor(
    consumer: Pick<GroupConsumer, 'pause' | 'resume'>,
    topics: { commands: readonly string[]; ledger: string },
    ownership: Ownership,
  ) {
    this.#consumer = consumer;
    this.#commandTopics = topics.commands;
    this.#ledgerTopic = topics.ledger;
    this.#ownership = ownership;
  }

  /** Returns whether the hold changed. */
  hold(reason: HoldReason, on: boolean): boolean {
    if (this.#holds.has(reason) === on) return false;
    if (on) this.#holds.add(reason);
    else this.#holds.delete(reason);
    this.update();
    return true;
  }

  update(): void {
    const fetchCommands: number[] = [];
    const pauseCommands: number[] = [];
    const fetchLedger: number[] = [];
    const pauseLedger: number[] = [];
    for (const partition of this.#ownership.assigned) {
      const active = this.#ownership.leaseOf(partition)?.canStart === true;
      (active && this.#holds.size === 0 ? fetchCommands : pauseCommands).push(partition);
      (this.#ownership.isReadingLedger(partition) ? fetchLedger : pauseLedger).push(partition);
    }
    const commands = (partitions: number[]): TopicPartitions[] =>
      partitions.length === 0 ? [] : this.#commandTopics.map((topic) => ({ topic, partitions }));
    const ledger = (partitions: number[]): TopicPartitions[] =>
      partitions.length === 0 ? [] : [{ topic: this.#ledgerTopic, partitions }];
    this.#consumer.pause([...commands(pauseCommands), ...ledger(pauseLedger)]);
    this.#consumer.resume([...commands(fetchCommands), ...ledger(fetchLedger)]);
  }
}
