/**
 * The console's Kafka, shared by every page: one admin connection, one partition scanner (reads
 * without a consumer group: nothing to join for a search), the topics' descriptions kept for a
 * short while, and at most SCANS_AT_ONCE partitions read at a time, so that memory stays bounded
 * (each read holds one fetch answer of at most 2 MiB) whatever the number of people searching.
 */
import type {
  ClusterAdmin,
  GroupDescription,
  KafkaTools,
  PartitionRange,
  PartitionScanner,
  RecordView,
  ScanResult,
  TopicDescription,
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
  #described: { at: number; topics: Promise<Map<string, TopicDescription>> } | undefined;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(kafka: KafkaTools, topics: TopicNames) {
    this.#kafka = kafka;
    this.topics = topics;
    this.#scanner = kafka.scanner();
  }

  admin(): Promise<ClusterAdmin> {
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
      const topics = this.admin().then((admin) =>
        admin.describeTopics(names, ['retention.ms', 'cleanup.policy']),
      );
      topics.catch(() => {
        this.#described = undefined;
      });
      this.#described = { at: now, topics };
    }
    return this.#described.topics;
  }

  async ranges(topic: string): Promise<PartitionRange[]> {
    return (await this.admin()).ranges(topic);
  }

  /** Per partition, the first offset written at or after `timestamp`, or its end. */
  async offsetsAt(topic: string, timestamp: number): Promise<Map<number, string>> {
    return (await this.admin()).offsetsAt(topic, timestamp);
  }

  async group(groupId: string): Promise<GroupDescription> {
    return (await this.admin()).describeGroup(groupId);
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
