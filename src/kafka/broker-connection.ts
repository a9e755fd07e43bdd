/**
 * One connection to one broker, speaking Kafka's protocol for the few requests the partition
 * scanner makes (partition-scan.ts): plaintext or TLS as KafkaClientSettings say (the same
 * options kafkajs gets, client-config.ts), SASL PLAIN or SCRAM when asked, then requests and
 * their answers by correlation id. kafkajs offers no way to fetch without a consumer group nor to
 * read a record batch without decoding every record; this does both, with nothing of kafkajs'.
 */
import { isIP, type Socket, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { kafkajsClientConfig } from './client-config.js';
import type { KafkaClientSettings } from './client-settings.js';
import { scramClient } from './scram.js';
import { Reader, Writer } from './wire.js';

const API = { saslHandshake: 17, saslAuthenticate: 36 } as const;
const CONNECT_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
/** No answer the scanner asks for is near this: a fetch is bounded by its max_bytes. */
const FRAME_MAX_BYTES = 256 * 1024 * 1024;

/** The connection failed or broke: another attempt may do better. */
export class BrokerConnectionError extends Error {}

/** The broker refused the login: another attempt with the same settings will not do better. */
export class BrokerLoginRefused extends Error {}

interface Waiting {
  resolve(payload: Buffer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class BrokerConnection {
  readonly #socket: Socket;
  readonly #clientId: string;
  readonly #waiting = new Map<number, Waiting>();
  #correlation = 0;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** Bytes needed before anything can be read: a size (4), or the size and its frame. */
  #needed = 4;
  #frame: number | undefined;
  #failure: Error | undefined;

  private constructor(socket: Socket, clientId: string) {
    this.#socket = socket;
    this.#clientId = clientId;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (error) => this.#fail(new BrokerConnectionError(error.message)));
    socket.on('close', () =>
      this.#fail(new BrokerConnectionError('the broker closed the connection')),
    );
  }

  /** Connects (TLS when set) and logs in (SASL when set). */
  static async open(
    host: string,
    port: number,
    settings: KafkaClientSettings,
  ): Promise<BrokerConnection> {
    const { ssl, sasl } = kafkajsClientConfig(settings);
    const socket = ssl
      ? tlsConnect({
          host,
          port,
          ...(isIP(host) ? {} : { servername: host }),
          ...(ssl === true ? {} : ssl),
        })
      : tcpConnect({ host, port });
    await connected(socket, ssl ? 'secureConnect' : 'connect', `${host}:${port}`);
    const connection = new BrokerConnection(socket, settings.clientId);
    if (settings.sasl && sasl) {
      await connection
        .#authenticate(settings.sasl.mechanism, settings.sasl.username, settings.sasl.password)
        .catch((error: unknown) => {
          connection.close();
          throw error;
        });
    }
    return connection;
  }

  get broken(): boolean {
    return this.#failure !== undefined;
  }

  /** Sends a request (header v1: api key, version, correlation id, client id) and awaits its answer. */
  request(
    apiKey: number,
    version: number,
    body: Buffer,
    timeoutMs = REQUEST_TIMEOUT_MS,
  ): Promise<Buffer> {
    if (this.#failure) return Promise.reject(this.#failure);
    const correlation = ++this.#correlation;
    const header = new Writer()
      .int16(apiKey)
      .int16(version)
      .int32(correlation)
      .string(this.#clientId)
      .bytes();
    const size = Buffer.alloc(4);
    size.writeInt32BE(header.length + body.length);
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(correlation);
        reject(new BrokerConnectionError(`no answer from the broker in ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.set(correlation, { resolve, reject, timer });
      this.#socket.write(Buffer.concat([size, header, body]));
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  async #authenticate(mechanism: string, username: string, password: string): Promise<void> {
    const name = mechanism.toUpperCase();
    const handshake = new Reader(
      await this.request(API.saslHandshake, 1, new Writer().string(name).bytes()),
    );
    const error = handshake.int16();
    if (error !== 0) {
      throw new BrokerLoginRefused(`the broker does not offer SASL ${name} (error ${error})`);
    }
    if (name === 'PLAIN') {
      await this.#saslStep(Buffer.from(`\u0000${username}\u0000${password}`));
      return;
    }
    const scram = scramClient(name === 'SCRAM-SHA-512' ? 'sha512' : 'sha256', username, password);
    const serverFirst = await this.#saslStep(Buffer.from(scram.first));
    const serverFinal = await this.#saslStep(Buffer.from(scram.final(serverFirst.toString())));
    scram.verify(serverFinal.toString());
  }

  /** One SaslAuthenticate (v1) round trip: what the server answered. */
  async #saslStep(token: Buffer): Promise<Buffer> {
    const read = new Reader(
      await this.request(API.saslAuthenticate, 1, new Writer().blob(token).bytes()),
    );
    const error = read.int16();
    const message = read.nullableString();
    const answer = read.blob();
    if (error !== 0) {
      throw new BrokerConnectionError(
        `SASL login refused (error ${error}): ${message ?? ''}`.trim(),
      );
    }
    return answer;
  }

  /** Frames: a size, then that many bytes. Chunks are joined once a whole frame is there. */
  #receive(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    while (this.#buffered >= this.#needed) {
      const all =
        this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
      this.#chunks = [all];
      if (this.#frame === undefined) {
        const size = all.readInt32BE(0);
        if (size < 4 || size > FRAME_MAX_BYTES) {
          this.#fail(new BrokerConnectionError(`an answer of ${size} bytes: not Kafka's protocol`));
          this.#socket.destroy();
          return;
        }
        this.#frame = size;
        this.#needed = 4 + size;
        continue;
      }
      const frame = all.subarray(4, this.#needed);
      const rest = all.subarray(this.#needed);
      this.#chunks = rest.length > 0 ? [rest] : [];
      this.#buffered = rest.length;
      this.#frame = undefined;
      this.#needed = 4;
      this.#answer(frame);
    }
  }

  #answer(frame: Buffer): void {
    const correlation = frame.readInt32BE(0);
    const waiting = this.#waiting.get(correlation);
    if (!waiting) return;
    this.#waiting.delete(correlation);
    clearTimeout(waiting.timer);
    waiting.resolve(frame.subarray(4));
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    this.#waiting.clear();
  }
}

/** Resolves once the socket is connected (and its TLS done); rejects on its error or a timeout. */
function connected(socket: Socket, event: string, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      socket.off(event, onConnect);
      socket.off('error', done);
      socket.setTimeout(0);
      if (error) reject(new BrokerConnectionError(`${address}: ${error.message}`));
      else resolve();
    };
    const onConnect = () => done();
    socket.once(event, onConnect);
    socket.once('error', done);
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => {
      socket.destroy();
      done(new Error(`no connection in ${CONNECT_TIMEOUT_MS} ms`));
    });
  });
}
