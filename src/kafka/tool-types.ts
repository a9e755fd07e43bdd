/**
 * What the SDK and the operator commands need of Kafka besides the bridge's own view (types.ts):
 * where each written record landed, writes under one transactional id, reading topics from a
 * chosen position. Only src/kafka implements them.
 */
import type {
  InboundRecord,
  KafkaConnection,
  OutboundRecord,
  TopicAdmin,
  TopicSpec,
} from './types.js';

export interface RecordPosition {
  readonly topic: string;
  readonly partition: number;
  /** A decimal string: offsets may exceed 2^53. */
  readonly offset: string;
}

export interface PositionedProducer {
  /**
   * Sent after every send called before it, one kafkajs send in flight at a time (those called
   * meanwhile go together in the next: send-queue.ts); resolves with each record's position, in
   * the order given.
   */
  send(records: readonly OutboundRecord[]): Promise<RecordPosition[]>;
  /** Once every send called before it has settled. */
  disconnect(): Promise<void>;
}

export interface PositionedTransaction {
  send(records: readonly OutboundRecord[]): Promise<RecordPosition[]>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/** A producer holding one transactional id, so two holders never write at once. */
export interface ExclusiveProducer {
  /**
   * Begins a transaction. The first one takes the transactional id: the broker ends whatever
   * transaction an earlier holder left open, then refuses that holder's writes.
   */
  begin(): Promise<PositionedTransaction>;
  disconnect(): Promise<void>;
}

export interface PartitionRange {
  readonly partition: number;
  /** The first offset the partition still holds. */
  readonly start: string;
  /** The offset the next record will get (for read_committed readers: the last stable one). */
  readonly end: string;
}

/** Where a broker listens, as the cluster's metadata advertises it. */
export interface BrokerAddress {
  readonly host: string;
  readonly port: number;
}

/** One member of a consumer group, as the broker describes it. */
export interface GroupMember {
  readonly memberId: string;
  readonly clientId: string;
  readonly clientHost: string;
  /** The bridge instance's id from its member metadata; undefined for another kind of client. */
  readonly instance: string | undefined;
  /** The partitions assigned to it, per topic. */
  readonly assignment: Readonly<Record<string, readonly number[]>>;
}

export interface GroupDescription {
  /** The broker's word for it: Stable, PreparingRebalance, CompletingRebalance, Empty, Dead. */
  readonly state: string;
  readonly members: readonly GroupMember[];
}

export interface ClusterAdmin extends TopicAdmin {
  createTopics(specs: readonly TopicSpec[]): Promise<void>;
  /** Grows each topic to `count` partitions (Kafka never shrinks one). */
  createPartitions(topics: readonly string[], count: number): Promise<void>;
  /** How many members the consumer group has now (0 for a group that is empty or unknown). */
  groupMembers(groupId: string): Promise<number>;
  /** The consumer group's state and members, each with its assignment. */
  describeGroup(groupId: string): Promise<GroupDescription>;
  /** Each partition's leader broker, as the cluster's metadata says now. */
  partitionLeaders(topic: string): Promise<Map<number, BrokerAddress>>;
  ranges(topic: string): Promise<PartitionRange[]>;
  /** Per partition, the first offset written at or after `timestamp` (ms), or its end. */
  offsetsAt(topic: string, timestamp: number): Promise<Map<number, string>>;
  /** The group's committed offset of each partition of the topic that has one. */
  committed(groupId: string, topic: string): Promise<Map<number, string>>;
  /**
   * Commits offsets for the group. Resolves false, changing nothing, while the group has members
   * (they hold their own positions).
   */
  commitIfIdle(
    groupId: string,
    topic: string,
    offsets: ReadonlyMap<number, string>,
  ): Promise<boolean>;
}

export type ReadStart = 'beginning' | 'end' | { readonly timestamp: number };

export interface ReaderOptions {
  readonly topics: readonly string[];
  /**
   * Where reading starts in each partition; in a group, in each partition without a committed
   * offset when the group first starts (those positions are committed then).
   */
  readonly start: ReadStart;
  /**
   * A consumer group to read in: its committed offsets win over `start`, and what was handled is
   * committed. Without one the reader reads alone, from exactly `start`, and commits nothing.
   */
  readonly groupId?: string | undefined;
  /** Without a group: only these partitions of a topic are read; the others are skipped. */
  readonly only?: ReadonlyMap<string, readonly number[]> | undefined;
  /** Without a group: stop once every partition is read up to where it ended at the start. */
  readonly toEnd?: boolean | undefined;
}

export interface TopicReader {
  /**
   * Starts reading; resolves once every partition's starting position is fixed. `onRecords` is
   * awaited before its partition's next records are handed over.
   */
  start(onRecords: (records: readonly InboundRecord[]) => Promise<void> | void): Promise<void>;
  /** Settles once reading ended (the end reached, or stop()); rejects if the consumer failed. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/** The bridge's view of Kafka and the tools' part, on one client. */
export interface KafkaTools extends KafkaConnection {
  clusterAdmin(): Promise<ClusterAdmin>;
  positionedProducer(): Promise<PositionedProducer>;
  exclusiveProducer(transactionalId: string): Promise<ExclusiveProducer>;
  reader(options: ReaderOptions): TopicReader;
}
