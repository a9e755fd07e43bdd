/**
 * Reads one partition of a topic from one offset to another, alone (no consumer group: nothing to
 * join, nothing committed), as read_committed, handing each record in place to the caller
 * (record-batches.ts), which copies out the few it keeps. For the console's searches: a bizId's
 * story is in one partition of each topic, among tens of thousands of other records.
 *
 * kafkajs has no consumer without a group, so this speaks the Fetch API (version 11, Kafka 2.3
 * and later) over the client's own cluster and broker connections (the same TLS and SASL),
 * reached through kafkajs 2.2.4's internals as the other modules of src/kafka do; the response is
 * decoded here, since kafkajs' own decoder would decode every record whole.
 */
import { createRequire } from 'node:module';
import type { Kafka } from 'kafkajs';
import {
  type AbortedTransaction,
  type BatchesRead,
  type RecordView,
  readBatches,
} from './record-batches.js';

/** Per fetch: the broker returns at least one whole batch even when it is larger. */
const FETCH_MAX_BYTES = 2 * 1024 * 1024;
const FETCH_VERSION = 11;
const READ_COMMITTED = 1;
const RETRIES = 5;
const ERROR = { none: 0, offsetOutOfRange: 1 } as const;

export interface ScanRequest {
  readonly topic: string;
  readonly partition: number;
  /** The first offset to read. */
  readonly from: bigint;
  /** The offset to stop before (for read_committed: at most the last stable offset). */
  readonly to: bigint;
  /** Every record in range; `record.copy()` keeps one (the view is reused for the next). */
  readonly visit: (record: RecordView) => void;
}

export interface ScanResult {
  /** Records looked at. */
  readonly records: number;
  /** Where reading began: `from`, or the partition's start when retention removed what was asked. */
  readonly from: bigint;
  /** Batches not read, by codec (snappy, lz4, zstd). */
  readonly unreadable: Readonly<Record<string, number>>;
}

export interface PartitionScanner {
  scan(request: ScanRequest): Promise<ScanResult>;
  disconnect(): Promise<void>;
}

interface KafkajsBroker {
  versions?: Record<number, { minVersion: number; maxVersion: number }>;
  connectionPool: { send(request: unknown): Promise<unknown> };
}
interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number; leader: number }>;
  findBroker(options: { nodeId: string }): Promise<KafkajsBroker>;
}
interface FetchProtocol {
  request: unknown;
  requestTimeout: number;
}

const load = createRequire(import.meta.url);

export function createPartitionScanner(kafka: Kafka): PartitionScanner {
  return new FetchScanner(kafka);
}

class FetchScanner implements PartitionScanner {
  readonly #cluster: KafkajsCluster;
  #connected: Promise<void> | undefined;

  constructor(kafka: Kafka) {
    const create = Object.getOwnPropertySymbols(kafka).find(
      (symbol) => symbol.description === 'private:Kafka:createCluster',
    );
    if (create === undefined)
      throw new Error('kafkajs client not recognised: no cluster to scan with');
    const factory = (kafka as unknown as Record<symbol, (options: object) => KafkajsCluster>)[
      create
    ];
    this.#cluster = (factory as (options: object) => KafkajsCluster)({
      allowAutoTopicCreation: false,
      isolationLevel: READ_COMMITTED,
    });
  }

  async scan(request: ScanRequest): Promise<ScanResult> {
    this.#connected ??= this.#cluster.connect();
    await this.#connected;
    await this.#cluster.addTargetTopic(request.topic);
    const unreadable: Record<string, number> = {};
    let from = request.from;
    let offset = request.from;
    let records = 0;
    let failures = 0;
    while (offset < request.to) {
      let answer: PartitionAnswer;
      try {
        answer = await this.#fetch(request.topic, request.partition, offset);
      } catch (error) {
        if (++failures > RETRIES || (error as { retriable?: boolean }).retriable !== true)
          throw error;
        await this.#cluster.refreshMetadata();
        continue;
      }
      if (answer.errorCode === ERROR.offsetOutOfRange && answer.logStartOffset > offset) {
        // Retention removed it since the range was read: begin where the partition now does.
        offset = answer.logStartOffset;
        from = offset;
        continue;
      }
      if (answer.errorCode !== ERROR.none) throw protocolError(answer.errorCode);
      const read: BatchesRead = readBatches(answer.records, offset, answer.aborted, (record) => {
        if (record.offset < request.to) request.visit(record);
      });
      records += read.records;
      for (const [codec, count] of Object.entries(read.unreadable)) {
        unreadable[codec] = (unreadable[codec] ?? 0) + count;
      }
      // Nothing whole came back: the end of what is stable (an open transaction), for now.
      if (read.next === undefined || read.next <= offset) break;
      offset = read.next;
    }
    return { records, from, unreadable };
  }

  async #fetch(topic: string, partition: number, offset: bigint): Promise<PartitionAnswer> {
    const leader = this.#cluster
      .findTopicPartitionMetadata(topic)
      .find((metadata) => metadata.partitionId === partition)?.leader;
    if (leader === undefined || leader < 0) {
      throw Object.assign(new Error(`no leader known for ${topic}/${partition}`), {
        retriable: true,
      });
    }
    const broker = await this.#cluster.findBroker({ nodeId: String(leader) });
    const supported = broker.versions?.[FETCH_API_KEY];
    if (supported && supported.maxVersion < FETCH_VERSION) {
      throw new Error(
        `the broker answers Fetch up to version ${supported.maxVersion}; scanning needs ${FETCH_VERSION} (Kafka 2.3 or later)`,
      );
    }
    const { request, requestTimeout } = fetchProtocol({
      replicaId: -1,
      isolationLevel: READ_COMMITTED,
      maxWaitTime: 0,
      minBytes: 1,
      maxBytes: FETCH_MAX_BYTES,
      topics: [
        {
          topic,
          partitions: [{ partition, fetchOffset: offset.toString(), maxBytes: FETCH_MAX_BYTES }],
        },
      ],
    });
    const answers = (await broker.connectionPool.send({
      request,
      response: { decode: decodeFetchResponse, parse: (decoded: unknown) => decoded },
      requestTimeout,
    })) as PartitionAnswer[];
    const answer = answers.find((one) => one.topic === topic && one.partition === partition);
    if (!answer) throw new Error(`the broker's fetch answer lacks ${topic}/${partition}`);
    return answer;
  }

  async disconnect(): Promise<void> {
    if (this.#connected) await this.#cluster.disconnect();
  }
}

const FETCH_API_KEY = 1;

function fetchProtocol(options: object): FetchProtocol {
  const fetch = load('kafkajs/src/protocol/requests/fetch/index.js') as {
    protocol(version: { version: number }): (options: object) => FetchProtocol;
  };
  return fetch.protocol({ version: FETCH_VERSION })(options);
}

function protocolError(code: number): Error {
  const { createErrorFromCode } = load('kafkajs/src/protocol/error.js') as {
    createErrorFromCode(code: number): Error;
  };
  return createErrorFromCode(code);
}

export interface PartitionAnswer {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
  readonly logStartOffset: bigint;
  readonly aborted: readonly AbortedTransaction[];
  readonly records: Buffer;
}

/**
 * Fetch response v11: throttle_time_ms error_code session_id [topic [partition error_code
 * high_watermark last_stable_offset log_start_offset [aborted_transactions] preferred_read_replica
 * records]]. The records stay bytes.
 */
export async function decodeFetchResponse(payload: Buffer): Promise<PartitionAnswer[]> {
  const read = new Reader(payload);
  read.int32(); // throttle time
  const errorCode = read.int16();
  if (errorCode !== ERROR.none) throw protocolError(errorCode);
  read.int32(); // session id
  const answers: PartitionAnswer[] = [];
  for (let t = read.int32(); t > 0; t--) {
    const topic = read.string();
    for (let p = read.int32(); p > 0; p--) {
      const partition = read.int32();
      const partitionError = read.int16();
      read.int64(); // high watermark
      read.int64(); // last stable offset
      const logStartOffset = read.int64();
      const aborted: AbortedTransaction[] = [];
      for (let a = read.int32(); a > 0; a--) {
        aborted.push({ producerId: read.int64(), firstOffset: read.int64() });
      }
      read.int32(); // preferred read replica
      const records = read.bytes();
      answers.push({
        topic,
        partition,
        errorCode: partitionError,
        logStartOffset,
        aborted,
        records,
      });
    }
  }
  return answers;
}

class Reader {
  #at = 0;
  readonly #buffer: Buffer;

  constructor(buffer: Buffer) {
    this.#buffer = buffer;
  }

  int16(): number {
    const value = this.#buffer.readInt16BE(this.#at);
    this.#at += 2;
    return value;
  }

  int32(): number {
    const value = this.#buffer.readInt32BE(this.#at);
    this.#at += 4;
    return value;
  }

  int64(): bigint {
    const value = this.#buffer.readBigInt64BE(this.#at);
    this.#at += 8;
    return value;
  }

  string(): string {
    const length = this.int16();
    const value = this.#buffer.toString('utf8', this.#at, this.#at + Math.max(0, length));
    this.#at += Math.max(0, length);
    return value;
  }

  bytes(): Buffer {
    const length = this.int32();
    const value = this.#buffer.subarray(this.#at, this.#at + Math.max(0, length));
    this.#at += Math.max(0, length);
    return value;
  }
}
