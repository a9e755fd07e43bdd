/**
 * Reads topics as a read_committed consumer, for the SDK's subscriber and the operator commands.
 * Alone (no group), it fixes every partition's position before it starts, so "from the end"
 * means the end at start(), not whatever it is when the first fetch goes out; in a group,
 * committed offsets decide and kafkajs commits what the handler returned from.
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
    const { topics, start, only, toEnd } = this.#options;
    const admin = await this.#admin();
    try {
      for (const topic of topics) {
        const ranges = await admin.ranges(topic);
        const at = typeof start === 'object' ? await admin.offsetsAt(topic, start.timestamp) : null;
        for (const { partition, start: first, end } of ranges) {
          const skipped = only?.has(topic) === true && !only.get(topic)?.includes(partition);
          const from = skipped || start === 'end' ? end : (at?.get(partition) ?? first);
          this.#positions.set(slot(topic, partition), BigInt(from));
          if (toEnd) this.#ends.set(slot(topic, partition), BigInt(end));
        }
      }
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

function splitSlot(key: Slot): [string, number] {
  const at = key.lastIndexOf('/');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
