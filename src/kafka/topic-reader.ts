/**
 * Reads topics as a read_committed consumer, for the SDK's subscriber and the operator commands.
 * It fixes every partition's starting position before it starts, so "from the end" means the
 * end at start(), not wherever it is when the first fetch goes out. Alone (no group) it seeks
 * there; in a group, a partition without a committed offset gets that position committed when
 * the group first starts, and from then on committed offsets decide (kafkajs commits what the
 * handler returned from), so a restart misses nothing published while it was down.
 */
import { randomUUID } from 'node:crypto';
import type { Batch, Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { toInbound } from './group-consumer.js';
import type { ClusterAdmin, ReaderOptions, TopicReader } from './tool-types.js';
import type { InboundRecord } from './types.js';

// Short, so a follower shows a record soon after it is written.
const FETCH_MAX_WAIT_MS = 100;

type Slot = `${string}/${number}`;
const slot = (topic: string, partition: number): Slot => `${topic}/${partition}`;

export function createTopicReader(
  kafka: Kafka,
  admin: () => Promise<ClusterAdmin>,
  options: ReaderOptions,
): TopicReader {
  return new KafkajsTopicReader(kafka, admin, options);
}

class KafkajsTopicReader implements TopicReader {
  readonly done: Promise<void>;
  readonly #kafka: Kafka;
  readonly #admin: () => Promise<ClusterAdmin>;
  readonly #options: ReaderOptions;
  /** Alone: the next offset to read in each partition. */
  readonly #positions = new Map<Slot, bigint>();
  /** Alone, reading to the end: where each partition ended at the start. */
  readonly #ends = new Map<Slot, bigint>();
  #consumer: Consumer | undefined;
  #stopping: Promise<void> | undefined;
  #settle: (error?: Error) => void = () => {};
  #settled = false;

  constructor(kafka: Kafka, admin: () => Promise<ClusterAdmin>, options: ReaderOptions) {
    this.#kafka = kafka;
    this.#admin = admin;
    this.#options = options;
    this.done = new Promise<void>((resolve, reject) => {
      this.#settle = (error) => {
        if (this.#settled) return;
        this.#settled = true;
        if (error) reject(error);
        else resolve();
      };
    });
    // Nobody may be waiting for it when the consumer fails.
    this.done.catch(() => {});
  }

  async start(onRecords: (records: readonly InboundRecord[]) => Promise<void> | void) {
    const { groupId, topics, start } = this.#options;
    const alone = groupId === undefined;
    if (alone) await this.#plan();
    else await this.#commitStart(groupId);
    if (this.#stopping) return;
    const consumer = this.#kafka.consumer({
      groupId: groupId ?? `signing-bridge-reader-${randomUUID()}`,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
    });
    this.#consumer = consumer;
    const { GROUP_JOIN, END_BATCH_PROCESS, CRASH } = consumer.events;
    // Joining (again, after a rebalance) moves positions back to the last commit: alone there
    // is none, so each join puts every partition back where this reader is.
    consumer.on(GROUP_JOIN, () => {
      if (alone) this.#seekAll(consumer);
    });
    consumer.on(END_BATCH_PROCESS, ({ payload }) => {
      this.#advance(slot(payload.topic, payload.partition), BigInt(payload.lastOffset) + 1n);
    });
    consumer.on(CRASH, ({ payload }) => {
      if (!payload.restart) this.#settle(payload.error);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning: start === 'beginning' });
    await consumer.run({
      autoCommit: !alone,
      eachBatch: async ({ batch }) => {
        const records = batch.messages
          .filter((message) => this.#wanted(batch, message))
          .map((message) => toInbound(batch, message));
        if (records.length > 0) await onRecords(records);
      },
    });
    this.#checkEnd();
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.#consumer?.disconnect();
      this.#settle();
    })();
    return this.#stopping;
  }

  /** Alone: each partition's starting position, and where it ends when reading to the end. */
  async #plan(): Promise<void> {
    const { topics, only, toEnd } = this.#options;
    await this.#withAdmin(async (admin) => {
      for (const topic of topics) {
        const starts = await startsOf(admin, topic, this.#options.start);
        for (const { partition, end } of await admin.ranges(topic)) {
          const skipped = only?.has(topic) === true && !only.get(topic)?.includes(partition);
          const from = skipped ? end : (starts.get(partition) ?? end);
          this.#positions.set(slot(topic, partition), BigInt(from));
          if (toEnd) this.#ends.set(slot(topic, partition), BigInt(end));
        }
      }
    });
  }

  /** In a group: the starting position of each partition the group has never committed. */
  async #commitStart(groupId: string): Promise<void> {
    await this.#withAdmin(async (admin) => {
      for (const topic of this.#options.topics) {
        const committed = await admin.committed(groupId, topic);
        const starts = await startsOf(admin, topic, this.#options.start);
        for (const partition of committed.keys()) starts.delete(partition);
        // A group with members running holds its own positions: nothing to fix then.
        await admin.commitIfIdle(groupId, topic, starts);
      }
    });
  }

  async #withAdmin(work: (admin: ClusterAdmin) => Promise<void>): Promise<void> {
    const admin = await this.#admin();
    try {
      await work(admin);
    } finally {
      await admin.disconnect();
    }
  }

  #seekAll(consumer: Consumer): void {
    for (const [key, offset] of this.#positions) {
      const [topic, partition] = splitSlot(key);
      consumer.seek({ topic, partition, offset: offset.toString() });
    }
  }

  #wanted(batch: Batch, message: KafkaMessage): boolean {
    const key = slot(batch.topic, batch.partition);
    const end = this.#ends.get(key);
    const { only } = this.#options;
    if (only?.has(batch.topic) && !only.get(batch.topic)?.includes(batch.partition)) return false;
    return end === undefined || BigInt(message.offset) < end;
  }

  #advance(key: Slot, next: bigint): void {
    if (this.#options.groupId !== undefined) return;
    if (next > (this.#positions.get(key) ?? -1n)) this.#positions.set(key, next);
    this.#checkEnd();
  }

  #checkEnd(): void {
    if (!this.#options.toEnd) return;
    for (const [key, end] of this.#ends) {
      if ((this.#positions.get(key) ?? 0n) < end) return;
    }
    void this.stop();
  }
}

/** Where `start` is in each partition of the topic. */
async function startsOf(
  admin: ClusterAdmin,
  topic: string,
  start: ReaderOptions['start'],
): Promise<Map<number, string>> {
  if (typeof start === 'object') return admin.offsetsAt(topic, start.timestamp);
  const ranges = await admin.ranges(topic);
  return new Map(ranges.map((r) => [r.partition, start === 'beginning' ? r.start : r.end]));
}

function splitSlot(key: Slot): [string, number] {
  const at = key.lastIndexOf('/');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
