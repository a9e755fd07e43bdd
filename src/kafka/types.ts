/**
 * The bridge's own view of Kafka: the few operations consumers, producers and the ledger need.
 * Only src/kafka implements them (with kafkajs today), so another client can replace it.
 */

export type HeaderValue = Buffer | string | Array<Buffer | string> | undefined;
export type RecordHeaders = Record<string, HeaderValue>;

/** A record as fetched. Offsets are decimal strings: they may exceed 2^53. */
export interface InboundRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: RecordHeaders;
  /** Milliseconds since the epoch, as a decimal string. */
  readonly timestamp: string;
}

export interface OutboundRecord {
  readonly topic: string;
  /** Explicit partition; otherwise the key's murmur2 hash, as Java clients do. */
  readonly partition?: number;
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: Readonly<RecordHeaders>;
}

export interface TopicPartitions {
  readonly topic: string;
  readonly partitions: readonly number[];
}

export interface TopicPartitionOffset {
  readonly topic: string;
  readonly partition: number;
  /** The next offset to read, as Kafka commits it. */
  readonly offset: string;
  /**
   * Kept with the commit: says who committed it. Kafka's tools reset offsets with none (the
   * ledger's restore checkpoint is trusted only with the bridge's own, ledger-upkeep.ts).
   */
  readonly metadata?: string;
}

/** A group's committed offset, with the metadata its committer kept with it (null: none). */
export interface CommittedOffset {
  readonly offset: string;
  readonly metadata: string | null;
}

/** Where one partition stands: its bounds, and what the group committed of it. */
export interface PartitionPosition {
  readonly topic: string;
  readonly partition: number;
  /** The offset of its first record still kept. */
  readonly logStart: string;
  /** The offset after its last record (the high-water mark). */
  readonly highWatermark: string;
  /** The group's committed offset; absent when it has none. */
  readonly committed?: string | undefined;
}

/** Records of one partition from one fetch, in offset order. */
export interface FetchedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly records: readonly InboundRecord[];
  /** The offset after the partition's last record when it was fetched. */
  readonly highWatermark?: string;
  /**
   * Moves the fetch position past `offset`. Records not resolved are fetched again once the
   * partition is fetched next, so a batch can be taken in part.
   */
  resolve(offset: string): void;
}

export interface GroupConsumerHandlers {
  /** Called for each fetched batch; the next fetch waits for it, so it must be quick. */
  onBatch(batch: FetchedBatch): void;
  /**
   * The partition numbers this member holds after a (re)join; called before the next fetch. A
   * join is also the coordinator answering this member.
   */
  onAssignment(partitions: readonly number[]): void;
  /** The coordinator accepted a heartbeat of this member: it is still in the group. */
  onHeartbeat(): void;
  /**
   * The partition numbers this member still holds: its metadata carries them at the next join,
   * so the assignment stays sticky. None once it may have lost them (src/partitions/lease.ts).
   */
  held(): readonly number[];
  /** The client failed; `restarting` says whether it rejoins on its own. */
  onCrash(error: Error, restarting: boolean): void;
}

export interface GroupConsumer {
  /**
   * Joins the group and fetches until stop(). Resolves once the fetch loop runs, or once joining
   * failed: kafkajs reports that failure through onCrash, not as a rejection.
   */
  run(topics: readonly string[], handlers: GroupConsumerHandlers): Promise<void>;
  /**
   * Pause and resume fetching; like seek, they do nothing while the member is out of the group
   * (its consumer crashed and is joining again): the caller applies its plan at the next join.
   */
  pause(partitions: readonly TopicPartitions[]): void;
  resume(partitions: readonly TopicPartitions[]): void;
  /** Resolves once the offsets are committed; rejects when they were not (they may be again). */
  commit(offsets: readonly TopicPartitionOffset[]): Promise<void>;
  /** Instance ids of the group's current members (our assigner's member metadata). */
  liveInstances(): Promise<ReadonlySet<string>>;
  /** The group's committed offset of one partition number in each topic; absent: none. */
  committed(topics: readonly string[], partition: number): Promise<Map<string, CommittedOffset>>;
  /** Every partition of the topics: its bounds and the group's committed offset (for lag). */
  positions(topics: readonly string[]): Promise<PartitionPosition[]>;
  /** The first offset of the partition written at or after the time; its end when none was. */
  offsetForTime(topic: string, partition: number, timestampMs: number): Promise<string>;
  /**
   * When the consumer last heard from its group: a heartbeat answered, a fetch completed, a join;
   * on the monotonic clock (`performance.now()`), so a step of the wall clock cannot make a
   * silence look recent; undefined before the first. Readiness reads it.
   */
  lastContact(): number | undefined;
  /** Fetches the (assigned) partition from this offset on. */
  seek(topic: string, partition: number, offset: string): void;
  /**
   * Leaves the group and disconnects. Called while run() is still joining, it stops run() from
   * going further and, once run() has returned, leaves.
   */
  stop(): Promise<void>;
}

export interface GroupConsumerOptions {
  readonly groupId: string;
  /** This process; travels in the member metadata so other members can tell it is alive. */
  readonly instanceId: string;
}

export interface RecordProducer {
  /** One produce request per broker for all records; resolves once every broker acknowledged. */
  send(records: readonly OutboundRecord[]): Promise<void>;
  disconnect(): Promise<void>;
}

export interface TopicSpec {
  readonly topic: string;
  readonly partitions: number;
  /** Absent: the broker's `default.replication.factor`. */
  readonly replicationFactor?: number | undefined;
  /** Topic-level configuration it is created with (`cleanup.policy`, `retention.ms`, ...). */
  readonly configs: Readonly<Record<string, string>>;
}

/** How the bridge's topics are set up: the TOPIC_* settings the topic table is read with. */
export interface TopicLayout {
  /** Of every topic; command topics and the ledger must share it. */
  readonly partitions: number;
  /** Absent: the broker's default. */
  readonly replicationFactor?: number | undefined;
  /** Absent: the broker's default. */
  readonly minInsyncReplicas?: number | undefined;
  /** `retention.ms` of the command and events topics. */
  readonly retentionMs: number;
  /** `retention.ms` of the dead-letter topic. */
  readonly deadLetterRetentionMs: number;
  /** Whether missing topics are created; otherwise the bridge refuses to start without them. */
  readonly create: boolean;
}

export interface TopicDescription {
  readonly topic: string;
  readonly partitions: number;
  /** The fewest replicas any of its partitions has. */
  readonly replicationFactor: number;
  /** The configuration entries asked for, as the broker reports them (defaults included). */
  readonly configs: Readonly<Record<string, string>>;
}

/** One partition as the cluster describes it (partition-health.ts). */
export interface PartitionHealth {
  readonly partition: number;
  /** The broker leading it; -1 for none. */
  readonly leader: number;
  readonly replicas: readonly number[];
  /** The replicas in sync with the leader. */
  readonly isr: readonly number[];
  /** Replicas whose log directory failed (a full or broken disk). */
  readonly offlineReplicas: readonly number[];
}

export interface TopicHealth {
  readonly partitions: readonly PartitionHealth[];
  /** The topic's min.insync.replicas (the broker's default when the topic sets none). */
  readonly minInsyncReplicas: number;
  /**
   * The brokers the cluster lists as running when asked (a stopped or fenced one is not listed;
   * KRaft also counts its replicas offline).
   */
  readonly brokers: readonly number[];
}

export interface TopicAdmin {
  /**
   * Creates the missing topics, or with `create: false` rejects naming them (TopicsMissing);
   * resolves with the partition count of every topic asked for.
   */
  ensureTopics(
    specs: readonly TopicSpec[],
    options?: { readonly create: boolean },
  ): Promise<Map<string, number>>;
  /** Each topic's `max.message.bytes`: the largest record batch it takes. */
  maxMessageBytes(topics: readonly string[]): Promise<Map<string, number>>;
  /** The topics that exist, described; a topic that does not exist is absent from the map. */
  describeTopics(
    topics: readonly string[],
    configNames: readonly string[],
  ): Promise<Map<string, TopicDescription>>;
  /**
   * The topics that exist, with each partition's leader, replicas and those in sync, and the
   * topic's min.insync.replicas (partition-health.ts); a topic that does not exist is absent.
   */
  partitionHealth(topics: readonly string[]): Promise<Map<string, TopicHealth>>;
  disconnect(): Promise<void>;
}

export interface KafkaConnection {
  /**
   * How the topics callers ask ensureTopics() for are set up (TOPIC_PARTITIONS, ...), as far as
   * the connection was told: the topic table (src/topics) fills in the rest.
   */
  readonly topicLayout: Partial<TopicLayout>;
  admin(): Promise<TopicAdmin>;
  consumer(options: GroupConsumerOptions): GroupConsumer;
  /**
   * With a transactional id, every send() is one Kafka transaction: read_committed consumers see
   * all of its records or none, whichever brokers lead their partitions.
   */
  producer(options?: { transactionalId?: string }): Promise<RecordProducer>;
  /**
   * Takes a transactional id from the producer that holds it, writing nothing: the broker
   * aborts the transaction that producer left open and refuses its later writes and commits.
   * @throws KafkaWriteFailed when the broker could not be asked or refused
   */
  fence(transactionalId: string): Promise<void>;
}
