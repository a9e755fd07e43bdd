/**
 * Reads one partition of a topic from one offset to another, alone (no consumer group: nothing to
 * join, nothing committed), as read_committed, handing each record in place to the caller
 * (record-batches.ts), which copies out the few it keeps. For the console's searches: a bizId's
 * story is in one partition of each topic, among tens of thousands of other records, and kafkajs
 * would decode every one of them whole, after joining a group.
 *
 * It sends Fetch (version 11: Kafka 2.3 and later, 4.x included) over connections of its own to
 * each partition's leader (broker-connection.ts: the client's TLS and SASL settings), the leaders
 * asked of the admin client. Answers are read here; their records stay bytes.
 */
import { BrokerConnection, BrokerConnectionError } from './broker-connection.js';
import type { KafkaClientSettings } from './client-settings.js';
import {
  type AbortedTransaction,
  type BatchesRead,
  type RecordView,
  readBatches,
} from './record-batches.js';
import type { BrokerAddress, PartitionRange } from './tool-types.js';
import { Reader, Writer } from './wire.js';

/** Per fetch: the broker returns at least one whole batch even when it is larger. */
export const FETCH_MAX_BYTES = 512 * 1024;
const FETCH_API_KEY = 1;
const FETCH_VERSION = 11;
const LIST_OFFSETS_API_KEY = 2;
const LIST_OFFSETS_VERSION = 2;
const EARLIEST = -2n;
const LATEST = -1n;
const READ_COMMITTED = 1;
const RETRIES = 5;
const OFFSET_OUT_OF_RANGE = 1;
/** The broker's answers that pass once its metadata is asked again. */
const RETRIABLE: Readonly<Record<number, string>> = {
  3: 'UNKNOWN_TOPIC_OR_PARTITION',
  5: 'LEADER_NOT_AVAILABLE',
  6: 'NOT_LEADER_OR_FOLLOWER',
  74: 'FENCED_LEADER_EPOCH',
  75: 'UNKNOWN_LEADER_EPOCH',
};
const REFUSALS: Readonly<Record<number, string>> = {
  29: 'TOPIC_AUTHORIZATION_FAILED: the client may not read this topic',
  35: 'UNSUPPORTED_VERSION: the broker does not answer this version of the request (Kafka 2.3 and later do)',
};

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
  /** The partition's first kept offset and its end (the last stable offset: read_committed). */
  range(topic: string, partition: number): Promise<PartitionRange>;
  scan(request: ScanRequest): Promise<ScanResult>;
  disconnect(): Promise<void>;
}

/** Each partition's leader, as the cluster's metadata says now. */
export type Leaders = (topic: string) => Promise<ReadonlyMap<number, BrokerAddress>>;

export function createPartitionScanner(
  settings: KafkaClientSettings,
  leaders: Leaders,
): PartitionScanner {
  return new FetchScanner(settings, leaders);
}

class FetchScanner implements PartitionScanner {
  readonly #settings: KafkaClientSettings;
  readonly #leadersOf: Leaders;
  readonly #leaders = new Map<string, Promise<ReadonlyMap<number, BrokerAddress>>>();
  readonly #connections = new Map<string, Promise<BrokerConnection>>();

  constructor(settings: KafkaClientSettings, leaders: Leaders) {
    this.#settings = settings;
    this.#leadersOf = leaders;
  }

  async range(topic: string, partition: number): Promise<PartitionRange> {
    const [start, end] = await Promise.all(
      [EARLIEST, LATEST].map((at) =>
        this.#retried(topic, () => this.#listOffset(topic, partition, at)),
      ),
    );
    return { partition, start: String(start), end: String(end) };
  }

  async scan(request: ScanRequest): Promise<ScanResult> {
    const unreadable: Record<string, number> = {};
    let from = request.from;
    let offset = request.from;
    let records = 0;
    let failures = 0;
    while (offset < request.to) {
      let fetched: Fetched;
      try {
        fetched = await this.#fetch(request, offset);
      } catch (error) {
        if (
          ++failures > RETRIES ||
          !(error instanceof Retriable || error instanceof BrokerConnectionError)
        ) {
          throw error;
        }
        this.#leaders.delete(request.topic);
        continue;
      }
      if ('logStartOffset' in fetched) {
        // Retention removed it since the range was read: begin where the partition now does.
        offset = fetched.logStartOffset;
        from = offset;
        continue;
      }
      records += fetched.records;
      for (const [codec, count] of Object.entries(fetched.unreadable)) {
        unreadable[codec] = (unreadable[codec] ?? 0) + count;
      }
      // Nothing whole came back: the end of what is stable (an open transaction), for now.
      if (fetched.next === undefined || fetched.next <= offset) break;
      offset = fetched.next;
    }
    return { records, from, unreadable };
  }

  /** `ask`, again after the leaders are asked again, while it fails in a way that passes. */
  async #retried<T>(topic: string, ask: () => Promise<T>): Promise<T> {
    for (let failures = 0; ; failures++) {
      try {
        return await ask();
      } catch (error) {
        const passes = error instanceof Retriable || error instanceof BrokerConnectionError;
        if (!passes || failures >= RETRIES) throw error;
        this.#leaders.delete(topic);
      }
    }
  }

  async #listOffset(topic: string, partition: number, at: bigint): Promise<bigint> {
    const connection = await this.#connection(await this.#leader(topic, partition));
    const body = new Writer()
      .int32(-1)
      .int8(READ_COMMITTED)
      .array([topic], (writer, name) =>
        writer.string(name).array([partition], (w, p) => w.int32(p).int64(at)),
      )
      .bytes();
    const read = new Reader(
      await connection.request(LIST_OFFSETS_API_KEY, LIST_OFFSETS_VERSION, body),
    );
    read.int32(); // throttle time
    for (let t = read.int32(); t > 0; t--) {
      const name = read.string();
      for (let p = read.int32(); p > 0; p--) {
        const number = read.int32();
        const errorCode = read.int16();
        read.int64(); // timestamp
        const offset = read.int64();
        if (name !== topic || number !== partition) continue;
        check(errorCode, topic, partition, 'list its offsets');
        return offset;
      }
    }
    throw new Error(`the broker's offsets answer lacks ${topic}/${partition}`);
  }

  async #leader(topic: string, partition: number): Promise<BrokerAddress> {
    let leaders = this.#leaders.get(topic);
    if (!leaders) {
      leaders = this.#leadersOf(topic);
      this.#leaders.set(topic, leaders);
      leaders.catch(() => this.#leaders.delete(topic));
    }
    const leader = (await leaders).get(partition);
    if (!leader) throw new Retriable(`no leader known for ${topic}/${partition}`);
    return leader;
  }

  async disconnect(): Promise<void> {
    const connections = [...this.#connections.values()];
    this.#connections.clear();
    for (const connection of await Promise.allSettled(connections)) {
      if (connection.status === 'fulfilled') connection.value.close();
    }
  }

  /**
   * One fetch from `offset`, its records visited as its answer arrives (the answer's buffer is
   * used again after): what was read, or where the partition begins now when `offset` is gone.
   */
  async #fetch(request: ScanRequest, offset: bigint): Promise<Fetched> {
    const { topic, partition } = request;
    const connection = await this.#connection(await this.#leader(topic, partition));
    const body = fetchRequest(topic, partition, offset);
    return connection.ask(FETCH_API_KEY, FETCH_VERSION, body, (payload): Fetched => {
      const answer = decodeFetchResponse(payload).find(
        (one) => one.topic === topic && one.partition === partition,
      );
      if (!answer) throw new Error(`the broker's fetch answer lacks ${topic}/${partition}`);
      if (answer.errorCode === OFFSET_OUT_OF_RANGE && answer.logStartOffset > offset) {
        return { logStartOffset: answer.logStartOffset };
      }
      check(answer.errorCode, topic, partition, 'fetch');
      return readBatches(answer.records, offset, answer.aborted, (record) => {
        if (record.offset < request.to) request.visit(record);
      });
    });
  }

  #connection({ host, port }: BrokerAddress): Promise<BrokerConnection> {
    const key = `${host}:${port}`;
    let connection = this.#connections.get(key);
    if (connection) {
      // A broken one is replaced by a new one on the next fetch.
      void connection.then(
        (open) => {
          if (open.broken && this.#connections.get(key) === connection) {
            this.#connections.delete(key);
          }
        },
        () => {},
      );
    } else {
      connection = BrokerConnection.open(host, port, this.#settings);
      this.#connections.set(key, connection);
      connection.catch(() => this.#connections.delete(key));
    }
    return connection;
  }
}

class Retriable extends Error {}

/** A fetch's records read, or, when its offset is gone, where the partition begins now. */
type Fetched = BatchesRead | { readonly logStartOffset: bigint };

/** Throws for an error code: Retriable for one that passes once the leaders are asked again. */
function check(errorCode: number, topic: string, partition: number, what: string): void {
  if (errorCode === 0) return;
  const passing = RETRIABLE[errorCode];
  if (passing) throw new Retriable(`${topic}/${partition}: ${passing}`);
  const refusal = REFUSALS[errorCode] ?? `error ${errorCode}`;
  throw new Error(`${topic}/${partition}: the broker refused to ${what}: ${refusal}`);
}

function fetchRequest(topic: string, partition: number, offset: bigint): Buffer {
  return new Writer()
    .int32(-1) // replica id: a consumer
    .int32(0) // max wait: what is there now
    .int32(1) // min bytes
    .int32(FETCH_MAX_BYTES)
    .int8(READ_COMMITTED)
    .int32(0) // session id: none
    .int32(-1) // session epoch: no session
    .array([topic], (writer, name) =>
      writer
        .string(name)
        .array([partition], (w, p) =>
          w.int32(p).int32(-1).int64(offset).int64(-1n).int32(FETCH_MAX_BYTES),
        ),
    )
    .array([], () => {}) // forgotten topics
    .string('') // rack id
    .bytes();
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
export function decodeFetchResponse(payload: Buffer): PartitionAnswer[] {
  const read = new Reader(payload);
  read.int32(); // throttle time
  const errorCode = read.int16();
  if (errorCode !== 0) throw new Error(`the broker refused the fetch: error ${errorCode}`);
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
      const records = read.blob();
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
