import type { Admin, Batch, Consumer, ConsumerConfig, Kafka, KafkaMessage } from 'kafkajs';
import { brokerLossRetry } from './client-retry.js';
import { coPartitionedAssigner, decodeUserData } from './co-partitioned-assigner.js';
import type {
  CommittedOffset,
  GroupConsumer,
  GroupConsumerHandlers,
  GroupConsumerOptions,
  InboundRecord,
  PartitionPosition,
  TopicPartitionOffset,
  TopicPartitions,
} from './types.js';

/** kafkajs heartbeats only between fetches, so a fetch must never wait long. */
const FETCH_MAX_WAIT_MS = 200;
// Short enough that a crashed member's partitions move on in seconds; the fetch loop
// heartbeats at least every FETCH_MAX_WAIT_MS, far inside it.
export const SESSION_TIMEOUT_MS = 10_000;
/**
 * How long after the coordinator last answered this member it may still act for its partitions
 * (src/partitions/lease.ts): four heartbeats missed, and four seconds before the coordinator can
 * have dropped the member at the session timeout and given them to another.
 */
export const LEASE_MS = 6_000;
const HEARTBEAT_INTERVAL_MS = 1_000;
// A fetch brings about what the bridge can take at once (a few thousand commands): what a full
// scheduler leaves of a batch is decoded again at the next fetch, and decoding is much of the
// consumer's CPU. A record larger than this still comes, alone: the broker never returns less
// than one whole batch.
const MAX_BYTES_PER_PARTITION = 64 * 1024;
const MAX_BYTES = 1024 * 1024;

/**
 * How old the consumer's view of the partitions' leaders may grow before a fetch reads it again
 * (kafkajs' default: 5 minutes). A partition with no leader (its only in-sync replica gone) is
 * not fetched at all (the declared patch of kafkajs keeps it in the metadata, leader -1); this is
 * how soon after a leader is back its records come again. One Metadata request per interval.
 */
const METADATA_MAX_AGE_MS = 5_000;

/** kafkajs' consumer options for a member of the bridge's group (besides its assigner). */
function groupConsumerConfig(groupId: string): ConsumerConfig {
  return {
    groupId,
    sessionTimeout: SESSION_TIMEOUT_MS,
    heartbeatInterval: HEARTBEAT_INTERVAL_MS,
    maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
    maxBytesPerPartition: MAX_BYTES_PER_PARTITION,
    maxBytes: MAX_BYTES,
    allowAutoTopicCreation: false,
    // kafkajs 2.2.4 stops every fetch at an error from any one broker and starts them all again
    // after a backoff (consumer/runner.js); once its tries run out the consumer crashes and
    // leaves the group (the lease lost, every partition acquired afresh). These outlast a
    // broker's fencing; meanwhile the other brokers' partitions are fetched once per try.
    retry: brokerLossRetry(),
    metadataMaxAge: METADATA_MAX_AGE_MS,
  };
}

/**
 * A kafkajs consumer in a group, fetching batches with the co-partitioned assigner. Offsets are
 * resolved only as the caller says and committed only when it asks.
 */
export class KafkajsGroupConsumer implements GroupConsumer {
  readonly #consumer: Consumer;
  readonly #kafka: Kafka;
  readonly #groupId: string;
  readonly #instanceId: string;
  // Connected on first use: only a partition taken over from a crashed holder asks.
  #admin: Promise<Admin> | undefined;
  // What run() was given: the assigner asks it what this member holds.
  #handlers: GroupConsumerHandlers | undefined;
  // kafkajs refuses pause and resume outside run(); a late breaker or backlog change may ask.
  #running = false;
  // In the group: kafkajs drops its group state when its consumer crashes, and refuses pause,
  // resume and seek (throwing) until it has joined again; the fetch plan is applied anew then.
  #joined = false;
  #joining: Promise<void> | undefined;
  #stopped = false;
  #lastContact: number | undefined;
  // One commit at a time: each listens for kafkajs' report of it (a listener per commit in
  // flight went past EventEmitter's limit when every partition's sweep committed at once).
  #committing: Promise<void> = Promise.resolve();

  constructor(kafka: Kafka, { groupId, instanceId }: GroupConsumerOptions) {
    this.#kafka = kafka;
    this.#groupId = groupId;
    this.#instanceId = instanceId;
    this.#consumer = kafka.consumer({
      ...groupConsumerConfig(groupId),
      partitionAssigners: [
        coPartitionedAssigner(() => ({
          instance: instanceId,
          owned: this.#handlers?.held() ?? [],
        })),
      ],
    });
  }

  run(topics: readonly string[], handlers: GroupConsumerHandlers): Promise<void> {
    this.#handlers = handlers;
    this.#joining = this.#run(topics, handlers);
    return this.#joining;
  }

  async #run(topics: readonly string[], handlers: GroupConsumerHandlers): Promise<void> {
    const consumer = this.#consumer;
    const contact = () => {
      this.#lastContact = performance.now();
    };
    consumer.on(consumer.events.HEARTBEAT, () => {
      contact();
      handlers.onHeartbeat();
    });
    consumer.on(consumer.events.FETCH, contact);
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.#joined = true;
      contact();
      const numbers = new Set(Object.values(payload.memberAssignment).flat());
      handlers.onAssignment([...numbers].sort((a, b) => a - b));
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      // Out of the group until it joins again.
      this.#joined = false;
      this.#lastContact = undefined;
      handlers.onCrash(payload.error, payload.restart);
    });
    await consumer.connect();
    if (this.#stopped) return;
    // Without a committed offset a partition starts at its beginning: commands written before
    // the bridge first ran are still commands to run.
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    if (this.#stopped) return;
    this.#running = true;
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, isStale }) => {
        // Fetched before a seek of its partition: the records from the seek's offset come next.
        if (isStale()) return;
        handlers.onBatch({
          topic: batch.topic,
          partition: batch.partition,
          records: batch.messages.map((message) => toInbound(batch, message)),
          highWatermark: batch.highWatermark,
          resolve: resolveOffset,
        });
      },
    });
  }

  pause(partitions: readonly TopicPartitions[]): void {
    if (this.#inGroup() && partitions.length > 0) this.#consumer.pause(partitions.map(mutable));
  }

  resume(partitions: readonly TopicPartitions[]): void {
    if (this.#inGroup() && partitions.length > 0) this.#consumer.resume(partitions.map(mutable));
  }

  #inGroup(): boolean {
    return this.#running && this.#joined;
  }

  /**
   * kafkajs resolves commitOffsets without committing anything while its consumer is not
   * running (rejoining after a broker outage, a rebalance, a crash it restarts from), so a commit
   * counts only when kafkajs reports it done; otherwise this rejects and the caller commits the
   * same offsets again. Trusting the silent return left partitions uncommitted for good.
   */
  commit(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0) return Promise.resolve();
    const committed = this.#committing.then(() => this.#commitNow(offsets));
    this.#committing = committed.catch(() => {});
    return committed;
  }

  async #commitNow(offsets: readonly TopicPartitionOffset[]): Promise<void> {
    const consumer = this.#consumer;
    let done = false;
    const stopListening = consumer.on(consumer.events.COMMIT_OFFSETS, () => {
      done = true;
    });
    try {
      await consumer.commitOffsets([...offsets]);
    } finally {
      stopListening();
    }
    if (!done) throw new Error('the consumer is not running (rejoining); offsets not committed');
  }

  async liveInstances(): Promise<ReadonlySet<string>> {
    const { members } = await this.#consumer.describeGroup();
    const instances = members.map((m) => decodeUserData(m.memberMetadata)?.instance);
    return new Set([this.#instanceId, ...instances.filter((i) => i !== undefined)]);
  }

  async committed(
    topics: readonly string[],
    partition: number,
  ): Promise<Map<string, CommittedOffset>> {
    const admin = await this.#adminClient();
    const offsets = await admin.fetchOffsets({ groupId: this.#groupId, topics: [...topics] });
    const committed = new Map<string, CommittedOffset>();
    for (const { topic, partitions } of offsets) {
      const found = partitions.find((p) => p.partition === partition);
      // None is -1; kafkajs commits -2 (the earliest) when it moves a partition to its start.
      if (found === undefined || Number(found.offset) < 0) continue;
      committed.set(topic, { offset: found.offset, metadata: found.metadata ?? null });
    }
    return committed;
  }

  async positions(topics: readonly string[]): Promise<PartitionPosition[]> {
    const admin = await this.#adminClient();
    const committed = new Map<string, string>();
    const groupOffsets = await admin.fetchOffsets({ groupId: this.#groupId, topics: [...topics] });
    for (const { topic, partitions } of groupOffsets) {
      for (const { partition, offset } of partitions) {
        if (Number(offset) >= 0) committed.set(`${topic}:${partition}`, offset);
      }
    }
    const ends = await Promise.all(
      topics.map(async (topic) => ({ topic, offsets: await admin.fetchTopicOffsets(topic) })),
    );
    return ends.flatMap(({ topic, offsets }) =>
      offsets.map(({ partition, low, high }) => ({
        topic,
        partition,
        logStart: low,
        highWatermark: high,
        committed: committed.get(`${topic}:${partition}`),
      })),
    );
  }

  async offsetForTime(topic: string, partition: number, timestampMs: number): Promise<string> {
    const admin = await this.#adminClient();
    const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, timestampMs);
    const found = offsets.find((o) => o.partition === partition)?.offset;
    if (found === undefined) throw new Error(`no partition ${partition} in ${topic}`);
    return found;
  }

  lastContact(): number | undefined {
    return this.#lastContact;
  }

  seek(topic: string, partition: number, offset: string): void {
    if (this.#inGroup()) this.#consumer.seek({ topic, partition, offset });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#running = false;
    // kafkajs cannot cancel a join in progress, and one cut off by a disconnect may crash and
    // rejoin on its own: let it end (joined or failed), then leave.
    await this.#joining?.catch(() => {});
    await this.#consumer.disconnect();
    const admin = this.#admin;
    this.#admin = undefined;
    await admin?.then((a) => a.disconnect()).catch(() => {});
  }

  /** One admin client, connected on first use (offsets of the group and by time). */
  #adminClient(): Promise<Admin> {
    this.#admin ??= (async () => {
      const admin = this.#kafka.admin({ retry: brokerLossRetry() });
      await admin.connect();
      return admin;
    })().catch((error: unknown) => {
      this.#admin = undefined;
      throw error;
    });
    return this.#admin;
  }
}

function mutable({ topic, partitions }: TopicPartitions) {
  return { topic, partitions: [...partitions] };
}

export function toInbound(batch: Batch, message: KafkaMessage): InboundRecord {
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: message.offset,
    key: message.key,
    value: message.value,
    headers: message.headers ?? {},
    timestamp: message.timestamp,
  };
}
