/**
 * A real HTTP server on 127.0.0.1 that answers as badly as a test asks: late, dripping, huge,
 * with a proxy's status. It logs every request that arrived (its bizId and signature timestamp),
 * and whether its connection closed before the answer was finished.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authHeaderNames } from '../../src/api-client/index.js';

export interface Arrival {
  readonly bizId: string | undefined;
  /** The signature timestamp header, epoch ms. */
  readonly timestamp: number;
  /** Date.now() when the whole request had arrived. */
  readonly arrivedAt: number;
  /** Resolves when its response ends: true if the connection closed before it was finished. */
  readonly closedEarly: Promise<boolean>;
}

export type Answer = (arrival: Arrival, res: ServerResponse, req: IncomingMessage) => void;

export interface MisbehavingServer {
  readonly url: string;
  readonly arrivals: Arrival[];
  /** Resolves with the arrival of `bizId` once it has come. */
  arrivalOf(bizId: string): Promise<Arrival>;
  stop(): Promise<void>;
}

const TIMESTAMP = authHeaderNames().timestamp;

export async function misbehavingServer(answer: Answer): Promise<MisbehavingServer> {
  const arrivals: Arrival[] = [];
  const waiting = new Map<string, Array<(arrival: Arrival) => void>>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const closedEarly = new Promise<boolean>((resolve) =>
        res.on('close', () => resolve(!res.writableFinished)),
      );
      const arrival: Arrival = {
        bizId: bizIdOf(text),
        timestamp: Number(req.headers[TIMESTAMP]),
        arrivedAt: Date.now(),
        closedEarly,
      };
      arrivals.push(arrival);
      for (const resolve of waiting.get(arrival.bizId ?? '') ?? []) resolve(arrival);
      waiting.delete(arrival.bizId ?? '');
      res.on('error', () => {});
      answer(arrival, res, req);
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    arrivalOf(bizId) {
      const arrived = arrivals.find((a) => a.bizId === bizId);
      if (arrived) return Promise.resolve(arrived);
      return new Promise((resolve) => {
        const list = waiting.get(bizId) ?? [];
        list.push(resolve);
        waiting.set(bizId, list);
      });
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

function bizIdOf(text: string): string | undefined {
  try {
    const bizId = (JSON.parse(text) as { bizId?: unknown }).bizId;
    return typeof bizId === 'string' ? bizId : undefined;
  } catch {
    return undefined;
  }
}

/** The platform's success for an operation without a result (remind), padded to `bytes`. */
export function successOf(bytes = 0): string {
  const envelope = '{"responseCode":"00000000"}';
  return envelope + ' '.repeat(Math.max(0, bytes - envelope.length));
}

/** Sends `body` one byte every `everyMs`, stopping if the connection goes. */
export function drip(res: ServerResponse, body: string, everyMs: number): void {
  res.writeHead(200, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(body),
  });
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    res.write(body[sent++]);
    if (sent === body.length) {
      clearInterval(timer);
      res.end();
    }
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

/**
 * Streams `totalBytes` of filler in 64 KiB chunks, waiting for the socket to drain (so the
 * server holds little itself), until done or the connection goes. Resolves with the bytes
 * written.
 */
export async function flood(
  res: ServerResponse,
  totalBytes: number,
  declareLength: boolean,
): Promise<number> {
  res.writeHead(200, {
    'content-type': 'application/json',
    ...(declareLength ? { 'content-length': totalBytes } : {}),
  });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let written = 0;
  while (written < totalBytes && !res.destroyed) {
    const part = chunk.subarray(0, Math.min(chunk.length, totalBytes - written));
    written += part.length;
    if (!res.write(part)) await drainedOrClosed(res);
  }
  if (!res.destroyed) res.end();
  return written;
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
