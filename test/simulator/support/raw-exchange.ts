// One platform call over its own connection with a raw node:http client that shows everything a
// spoiled answer does: when the head came, each body byte, and how the exchange ended (the whole
// body, a reset, a close). The client can give up after some bytes, or never read the body.
import { EventEmitter } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { OPERATIONS, type OperationName } from '../../../src/schemas/platform/operations.js';
import type { RawPlatform } from './raw-platform.js';

/** The body kept for the test to read; the bytes beyond it are only counted. */
const KEPT_BYTES = 8 * 1_048_576;

export interface ExchangeOptions {
  /** The client destroys the connection once this many body bytes have come. */
  readonly giveUpAfter?: number;
  /** The client does not read the body until read(), so the server meets backpressure. */
  readonly unread?: boolean;
}

export class RawExchange {
  /** The response head, once it arrived. */
  readonly head: Promise<IncomingMessage>;
  /** How it ended: `end` (the whole body), else the client's error code, or `closed`. */
  readonly ended: Promise<string>;
  bytes = 0;
  /** Body chunks as they came, up to KEPT_BYTES. */
  readonly chunks: Buffer[] = [];
  readonly #events = new EventEmitter();
  readonly #request: ReturnType<typeof httpRequest>;
  #response: IncomingMessage | undefined;

  constructor(
    platform: RawPlatform,
    operation: OperationName,
    body: unknown,
    options: ExchangeOptions = {},
  ) {
    const text = JSON.stringify(body);
    this.#request = httpRequest(`${platform.baseUrl}${OPERATIONS[operation].path}`, {
      method: 'POST',
      agent: false,
      headers: {
        ...platform.headers(),
        'content-type': 'application/json;charset=UTF-8',
        'content-length': Buffer.byteLength(text),
      },
    });
    this.head = new Promise((resolve, reject) => {
      this.#request.once('response', resolve);
      this.#request.once('error', reject);
    });
    this.head.catch(() => {});
    this.ended = new Promise((resolve) => {
      this.#request.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      this.#request.once('response', (res) => this.#follow(res, options, resolve));
    });
    this.#request.end(text);
  }

  /** The body received so far (up to KEPT_BYTES). */
  get text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  /** Resolves once at least `bytes` body bytes have come. */
  received(bytes: number): Promise<void> {
    if (this.bytes >= bytes) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.bytes < bytes) return;
        this.#events.off('data', check);
        resolve();
      };
      this.#events.on('data', check);
    });
  }

  /** The client goes away: its connection is destroyed. */
  giveUp(): void {
    this.#request.destroy();
  }

  /** A client that did not read starts reading now. */
  read(): void {
    this.#response?.resume();
  }

  #follow(res: IncomingMessage, options: ExchangeOptions, resolve: (how: string) => void): void {
    this.#response = res;
    res.once('end', () => resolve('end'));
    res.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    res.once('close', () => resolve(res.complete ? 'end' : 'closed'));
    res.on('data', (chunk: Buffer) => {
      this.bytes += chunk.length;
      if (this.bytes - chunk.length < KEPT_BYTES) this.chunks.push(chunk);
      this.#events.emit('data');
      if (options.giveUpAfter !== undefined && this.bytes >= options.giveUpAfter) this.giveUp();
    });
    // A paused response leaves the socket unread too: the server's writes back up.
    if (options.unread) res.pause();
  }
}
