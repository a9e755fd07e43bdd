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
const READ_BUFFER_BYTES = 64 * 1024;
export const REQUEST_TIMEOUT_MS = 30_000;
/** No answer the scanner asks for is near this: a fetch is bounded by its max_bytes. */
const FRAME_MAX_BYTES = 256 * 1024 * 1024;

/** The connection failed or broke: another attempt may do better. */
export class BrokerConnectionError extends Error {}

/** The broker refused the login: another attempt with the same settings will not do better. */
export class BrokerLoginRefused extends Error {}

interface Waiting {
  /** Given the answer's body, a view of a buffer used again once this returns. */
  take(payload: Buffer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** Frame buffers kept to be used again, at most: as many as reads at once, and one. */
const SPARE_FRAMES = 5;

export class BrokerConnection {
  readonly #socket: Socket;
  readonly #clientId: string;
  readonly #waiting = new Map<number, Waiting>();
  #correlation = 0;
  /** The next answer's size as it comes, then the answer. */
  readonly #size = Buffer.alloc(4);
  #sizeFilled = 0;
  #frame: Buffer | undefined;
  #frameFilled = 0;
  readonly #spare: Buffer[] = [];
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
    // Plain TCP reads into one buffer of its own, again and again: the megabytes a search reads
    // leave no chunk behind for the collector (TLS hands its decrypted chunks over as 'data').
    let receive: ((chunk: Buffer) => void) | undefined;
    const onread = {
      buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
      callback: (bytes: number, buffer: Uint8Array) => {
        receive?.(Buffer.from(buffer.buffer, buffer.byteOffset, bytes));
        return true;
      },
    };
    const socket = ssl
      ? tlsConnect({
          host,
          port,
          ...(isIP(host) ? {} : { servername: host }),
          ...(ssl === true ? {} : ssl),
        })
      : tcpConnect({ host, port, onread });
    await connected(socket, ssl ? 'secureConnect' : 'connect', `${host}:${port}`);
    const connection = new BrokerConnection(socket, settings.clientId);
    receive = (chunk) => connection.#receive(chunk);
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
  /** Sends a request and resolves with a copy of its answer's body. */
  request(apiKey: number, version: number, body: Buffer): Promise<Buffer> {
    return this.ask(apiKey, version, body, (payload) => Buffer.from(payload));
  }

  /**
   * Sends a request (header v1: api key, version, correlation id, client id) and resolves with
   * what `use` makes of the answer's body. `use` runs as the answer arrives and must not keep
   * the body: its buffer holds the next answer after it (a search reads megabytes through a few
   * buffers, not through a new one per answer).
   */
  ask<T>(
    apiKey: number,
    version: number,
    body: Buffer,
    use: (payload: Buffer) => T,
    timeoutMs = REQUEST_TIMEOUT_MS,
  ): Promise<T> {
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
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(correlation);
        reject(new BrokerConnectionError(`no answer from the broker in ${timeoutMs} ms`));
      }, timeoutMs);
      const take = (payload: Buffer) => {
        try {
          resolve(use(payload));
        } catch (error) {
          reject(error);
        }
      };
      this.#waiting.set(correlation, { take, reject, timer });
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

  /**
   * Frames: a size, then that many bytes, copied once into a buffer of that size as they come
   * (a fetch's answer is megabytes in tens of chunks).
   */
  #receive(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#frame === undefined) {
        const take = Math.min(4 - this.#sizeFilled, chunk.length - at);
        chunk.copy(this.#size, this.#sizeFilled, at, at + take);
        this.#sizeFilled += take;
        at += take;
        if (this.#sizeFilled < 4) return;
        const size = this.#size.readInt32BE(0);
        if (size < 4 || size > FRAME_MAX_BYTES) {
          this.#fail(new BrokerConnectionError(`an answer of ${size} bytes: not Kafka's protocol`));
          this.#socket.destroy();
          return;
        }
        this.#frame = this.#frameOf(size);
        this.#frameFilled = 0;
        continue;
      }
      const take = Math.min(this.#frame.length - this.#frameFilled, chunk.length - at);
      chunk.copy(this.#frame, this.#frameFilled, at, at + take);
      this.#frameFilled += take;
      at += take;
      if (this.#frameFilled === this.#frame.length) {
        const frame = this.#frame;
        this.#frame = undefined;
        this.#sizeFilled = 0;
        this.#answer(frame);
      }
    }
  }

  /** A buffer of `size` bytes: a view of a spare one large enough, or a new one. */
  #frameOf(size: number): Buffer {
    const at = this.#spare.findIndex((spare) => spare.length >= size);
    // Never from the shared pool: the buffer is used again whole.
    if (at < 0) return Buffer.allocUnsafeSlow(size);
    const [spare] = this.#spare.splice(at, 1);
    return (spare as Buffer).subarray(0, size);
  }

  #answer(frame: Buffer): void {
    const correlation = frame.readInt32BE(0);
    const waiting = this.#waiting.get(correlation);
    if (waiting) {
      this.#waiting.delete(correlation);
      clearTimeout(waiting.timer);
      waiting.take(frame.subarray(4));
    }
    // Its whole buffer, for the next answer: `take` has done with it.
    const whole = Buffer.from(
      frame.buffer,
      frame.byteOffset,
      frame.buffer.byteLength - frame.byteOffset,
    );
    if (this.#spare.length < SPARE_FRAMES) this.#spare.push(whole);
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
