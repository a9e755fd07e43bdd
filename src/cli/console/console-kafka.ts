/**
 * The console's Kafka, shared by every page: one admin connection, one partition scanner (reads
 * without a consumer group: nothing to join for a search), the topics' descriptions kept for a
 * short while, and at most SCANS_AT_ONCE partitions read at a time, so that memory stays bounded
 * (each read holds one fetch answer of at most 2 MiB) whatever the number of people searching.
 */
import {
  type ClusterAdmin,
  createPartitionScanner,
  type GroupDescription,
  type KafkaClientSettings,
  type KafkaTools,
  type PartitionRange,
  type PartitionScanner,
  type RecordView,
  type ScanResult,
  type TopicDescription,
} from '../../kafka/index.js';
import type { TopicNames } from '../../schemas/messages/index.js';

const SCANS_AT_ONCE = 4;
const DESCRIPTION_TTL_MS = 30_000;

export interface PartitionRead {
  readonly topic: string;
  readonly partition: number;
  /** The partition's first kept offset and its end (last stable offset), when read. */
  readonly range: PartitionRange;
  /** Where reading began and stopped. */
  readonly from: bigint;
  readonly to: bigint;
  readonly result: ScanResult;
}

export class ConsoleKafka {
  readonly topics: TopicNames;
  readonly #kafka: KafkaTools;
  readonly #scanner: PartitionScanner;
  #admin: Promise<ClusterAdmin> | undefined;
  #adminTurn: Promise<void> = Promise.resolve();
  #described: { at: number; topics: Promise<Map<string, TopicDescription>> } | undefined;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  /** `settings`: how the scanner's own connections reach and log in to the brokers. */
  constructor(kafka: KafkaTools, topics: TopicNames, settings: KafkaClientSettings) {
    this.#kafka = kafka;
    this.topics = topics;
    this.#scanner = createPartitionScanner(settings, (topic) =>
      this.withAdmin((admin) => admin.partitionLeaders(topic)),
    );
  }

  /**
   * Asks the admin client, one question at a time: kafkajs' admin mixes up the answers of
   * questions asked at once (offsets of several topics in parallel lose one).
   */
  withAdmin<T>(ask: (admin: ClusterAdmin) => Promise<T>): Promise<T> {
    const asked = this.#adminTurn.then(async () => ask(await this.#connectedAdmin()));
    this.#adminTurn = asked.then(
      () => {},
      () => {},
    );
    return asked;
  }

  #connectedAdmin(): Promise<ClusterAdmin> {
    this.#admin ??= this.#kafka.clusterAdmin().catch((error: unknown) => {
      this.#admin = undefined;
      throw error;
    });
    return this.#admin;
  }

  /** Every topic of the bridge that exists, with its partitions and retention. */
  describe(): Promise<Map<string, TopicDescription>> {
    const now = Date.now();
    if (!this.#described || now - this.#described.at > DESCRIPTION_TTL_MS) {
      const { commands, events, deadLetter, ledger } = this.topics;
      const names = [...Object.values(commands), events, deadLetter, ledger];
      const topics = this.withAdmin((admin) =>
        admin.describeTopics(names, ['retention.ms', 'cleanup.policy']),
      );
      topics.catch(() => {
        this.#described = undefined;
      });
      this.#described = { at: now, topics };
    }
    return this.#described.topics;
  }

  /** One partition's first kept offset and its end, asked of its leader. */
  range(topic: string, partition: number): Promise<PartitionRange> {
    return this.#scanner.range(topic, partition);
  }

  /** Every partition's, of a topic that exists (none otherwise). */
  async ranges(topic: string): Promise<PartitionRange[]> {
    const count = (await this.describe()).get(topic)?.partitions ?? 0;
    return Promise.all(Array.from({ length: count }, (_, p) => this.range(topic, p)));
  }

  /** Per partition, the first offset written at or after `timestamp`, or its end. */
  offsetsAt(topic: string, timestamp: number): Promise<Map<number, string>> {
    return this.withAdmin((admin) => admin.offsetsAt(topic, timestamp));
  }

  group(groupId: string): Promise<GroupDescription> {
    return this.withAdmin((admin) => admin.describeGroup(groupId));
  }

  committed(groupId: string, topic: string): Promise<Map<number, string>> {
    return this.withAdmin((admin) => admin.committed(groupId, topic));
  }

  /**
   * Reads [from, to) of one partition, `visit` seeing each record in place; waits its turn
   * among the reads under way.
   */
  async read(
    topic: string,
    range: PartitionRange,
    bounds: { from: bigint; to: bigint },
    visit: (record: RecordView) => void,
  ): Promise<PartitionRead> {
    await this.#turn();
    try {
      const { partition } = range;
      const result = await this.#scanner.scan({ topic, partition, ...bounds, visit });
      return { topic, partition, range, ...bounds, result };
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  async close(): Promise<void> {
    await this.#scanner.disconnect();
    const admin = await this.#admin?.catch(() => undefined);
    await admin?.disconnect();
  }

  async #turn(): Promise<void> {
    if (this.#running >= SCANS_AT_ONCE) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#running++;
  }
}

/**
 * The newest `bound` records of a partition, or the page `page` before them (0 the newest):
 * where a bounded search reads, and whether it reached the partition's first kept record.
 */
export function boundedWindow(
  range: PartitionRange,
  bound: number,
  page = 0,
): { from: bigint; to: bigint; reachesStart: boolean } {
  const start = BigInt(range.start);
  const end = BigInt(range.end);
  const size = BigInt(bound);
  const to = maxOf(start, end - size * BigInt(page));
  const from = maxOf(start, to - size);
  return { from, to, reachesStart: from === start };
}

function maxOf(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
