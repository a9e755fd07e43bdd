// One Metadata request (v6) for every topic, sent to one named broker over a socket of its own.
// kafkajs cannot be held to one broker (it sends Metadata to one drawn from the last answer's
// list, a killed node among them until it is fenced) and refuses a whole answer in which a
// partition has no leader; a node's own answer, leaderless partitions included, is what a wait
// for the cluster to settle has to compare. v6 is inside every version 3.x and 4.x serve.
import { connect } from 'node:net';

export interface PartitionReplicas {
  topic: string;
  partition: number;
  /** -1: none. */
  leader: number;
  replicas: number[];
  isr: number[];
}

const METADATA_API_KEY = 3;
const METADATA_VERSION = 6;
const CLIENT_ID = 'local-kafka-replicas';
/** Far above what a test cluster's metadata takes, far below what would hurt. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export interface NodeMetadata {
  /** The brokers it lists: registered and not fenced. */
  nodeIds: number[];
  /** Every partition of every topic, the internal ones (`__consumer_offsets`, …) included. */
  partitions: PartitionReplicas[];
}

/** What `broker` ("host:port") knows of the cluster's brokers and partitions now. */
export async function fetchMetadata(broker: string, timeoutMs = 5_000): Promise<NodeMetadata> {
  const response = await exchange(broker, metadataRequest(), timeoutMs);
  return parseMetadata(new Reader(response));
}

function metadataRequest(): Buffer {
  const clientId = Buffer.from(CLIENT_ID);
  const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length + 4 + 1);
  let at = body.writeInt16BE(METADATA_API_KEY, 0);
  at = body.writeInt16BE(METADATA_VERSION, at);
  at = body.writeInt32BE(1, at); // correlation id: one request per connection
  at = body.writeInt16BE(clientId.length, at);
  at += clientId.copy(body, at);
  at = body.writeInt32BE(-1, at); // topics: null, meaning all of them
  body.writeInt8(0, at); // allow_auto_topic_creation: false
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** Sends `request` and resolves with the one response's bytes after its size. */
function exchange(broker: string, request: Buffer, timeoutMs: number): Promise<Buffer> {
  const [host = '', port = ''] = broker.split(':');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port: Number(port) });
    const chunks: Buffer[] = [];
    let received = 0;
    const fail = (error: Error) => {
      socket.destroy();
      reject(new Error(`${broker}: ${error.message}`, { cause: error }));
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no answer within ${timeoutMs} ms`)));
    socket.once('error', fail);
    socket.once('end', () => fail(new Error('closed the connection before answering')));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < 4) return;
      const data = Buffer.concat(chunks);
      const size = data.readInt32BE(0);
      if (size > MAX_RESPONSE_BYTES) return fail(new Error(`answered ${size} bytes`));
      if (data.length < 4 + size) return;
      socket.destroy();
      resolve(data.subarray(4, 4 + size));
    });
    socket.write(request);
  });
}

function parseMetadata(reader: Reader): NodeMetadata {
  reader.int32(); // correlation id
  reader.int32(); // throttle time
  const nodeIds = reader.array(() => {
    const nodeId = reader.int32();
    reader.string(); // host
    reader.int32(); // port
    reader.string(); // rack
    return nodeId;
  });
  reader.string(); // cluster id
  reader.int32(); // controller id
  const partitions = reader
    .array(() => {
      reader.int16(); // topic error: a partition's state says enough
      const topic = reader.string() ?? '';
      reader.int8(); // is internal
      return reader.array(() => {
        reader.int16(); // partition error, e.g. LEADER_NOT_AVAILABLE: the leader says it
        const partition = reader.int32();
        const leader = reader.int32();
        const replicas = reader.array(() => reader.int32());
        const isr = reader.array(() => reader.int32());
        reader.array(() => reader.int32()); // offline replicas
        return { topic, partition, leader, replicas, isr };
      });
    })
    .flat();
  return { nodeIds, partitions };
}

/** Kafka's classic (non-flexible) encoding, read front to back; a short buffer throws. */
class Reader {
  #at = 0;
  constructor(private readonly data: Buffer) {}

  int8(): number {
    return this.#step(1, this.data.readInt8(this.#at));
  }
  int16(): number {
    return this.#step(2, this.data.readInt16BE(this.#at));
  }
  int32(): number {
    return this.#step(4, this.data.readInt32BE(this.#at));
  }
  /** A nullable string: null for length -1. */
  string(): string | null {
    const length = this.int16();
    if (length < 0) return null;
    const text = this.data.toString('utf8', this.#at, this.#at + length);
    return this.#step(length, text);
  }
  array<T>(item: () => T): T[] {
    const count = this.int32();
    // Every item takes a byte at least: a larger count is a broken answer, not an allocation.
    if (count > this.data.length - this.#at) throw new RangeError('metadata answer cut short');
    return Array.from({ length: Math.max(count, 0) }, item);
  }

  #step<T>(bytes: number, value: T): T {
    if (this.#at + bytes > this.data.length) throw new RangeError('metadata answer cut short');
    this.#at += bytes;
    return value;
  }
}
