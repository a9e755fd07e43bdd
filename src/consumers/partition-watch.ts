/**
 * The partition counts of the co-partitioned topics (the command topics and the ledger), watched
 * while the bridge runs. They are read once at start and everything is placed by them: a bizId's
 * records by murmur2 of its key modulo the count, its ledger entry on the same partition number.
 * A topic grown while the bridge runs breaks that silently (new partitions whose ledger partition
 * does not exist never finish restoring; bizIds move away from their ledger entries), so a change
 * is reported once, as a typed error, and the caller stops consuming the new partitions.
 */
import type { Logger } from 'pino';
import { TopicsRepartitioned } from '../errors.js';
import type { KafkaConnection } from '../kafka/index.js';

export interface PartitionWatchOptions {
  readonly kafka: Pick<KafkaConnection, 'admin'>;
  /** The command topics and the ledger. */
  readonly topics: readonly string[];
  /** The count every one of them had at start. */
  readonly partitions: number;
  readonly intervalMs: number;
  readonly onChange: (error: TopicsRepartitioned) => void;
  readonly log: Logger;
}

export class PartitionWatch {
  readonly #options: PartitionWatchOptions;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(options: PartitionWatchOptions) {
    this.#options = options;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.check(), this.#options.intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One comparison; a failure to ask (brokers away) is left to the next one. */
  async check(): Promise<void> {
    if (this.#checking || this.#timer === undefined) return;
    this.#checking = true;
    try {
      const changed = await this.#changed();
      if (changed === undefined || this.#timer === undefined) return;
      this.stop();
      this.#timer = undefined;
      this.#options.onChange(repartitioned(this.#options.partitions, changed));
    } catch (error) {
      this.#options.log.debug(
        { err: error },
        'partition counts not read; the next check asks again',
      );
    } finally {
      this.#checking = false;
    }
  }

  async #changed(): Promise<Record<string, { was: number; now: number }> | undefined> {
    const { kafka, topics, partitions } = this.#options;
    const admin = await kafka.admin();
    try {
      const described = await admin.describeTopics(topics, []);
      const changed = Object.fromEntries(
        [...described.values()]
          .filter(({ partitions: now }) => now !== partitions)
          .map(({ topic, partitions: now }) => [topic, { was: partitions, now }]),
      );
      return Object.keys(changed).length > 0 ? changed : undefined;
    } finally {
      await admin.disconnect();
    }
  }
}

/** The line names the smallest N that works: `topics grow` refuses a count below a topic's. */
function repartitioned(
  from: number,
  changed: Record<string, { was: number; now: number }>,
): TopicsRepartitioned {
  const list = Object.entries(changed)
    .map(([topic, { was, now }]) => `${topic} ${was} -> ${now}`)
    .join(', ');
  const to = Math.max(from, ...Object.values(changed).map(({ now }) => now));
  const grow = `signing-bridge topics grow --partitions ${to}`;
  return new TopicsRepartitioned(
    `topic partitions changed while running (${list}): command partitions ${from} and above are not consumed, since their bizIds' ledger entries are on other partitions; those below still run. Stop the producers; once ${grow} no longer refuses for lag (the partitions below ${from} drained), stop the bridge and run it again (${to} or more: it grows the command topics and the ledger below that count and moves the ledger entries); set TOPIC_PARTITIONS to that count; start the bridge, then the producers`,
    { details: { changed } },
  );
}
