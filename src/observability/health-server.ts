/**
 * The service's only HTTP listener: /healthz (the process answers), /readyz (the bridge is
 * consuming: 503 naming why not), /metrics (Prometheus) and /status (this instance as JSON,
 * for the console: status.ts). Read-only; nothing routes work here.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export interface HealthServerOptions {
  readonly host: string;
  readonly port: number;
  /** Why the service is not ready, one line each; empty when it is. */
  readonly notReadyBecause: () => readonly string[];
  readonly registry: Registry;
  readonly log: Logger;
  /** /status's JSON, made when asked; without it /status is not served. */
  readonly status?: () => Promise<object>;
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server = createServer((req, res) => {
    answer(req, res, options).catch((error: unknown) => {
      options.log.error({ err: error, url: req.url }, 'health server failed to answer');
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  options.log.info({ host: options.host, port }, 'health and metrics server listening');
  return {
    port,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, options: HealthServerOptions) {
  const path = new URL(req.url ?? '/', 'http://health').pathname;
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'GET only\n');
  switch (path) {
    case '/healthz':
      return send(res, 200, 'ok\n');
    case '/readyz': {
      const reasons = options.notReadyBecause();
      if (reasons.length === 0) return send(res, 200, 'ready\n');
      return send(res, 503, `not ready\n${reasons.map((r) => `- ${r}\n`).join('')}`);
    }
    case '/metrics':
      return send(res, 200, await options.registry.metrics(), options.registry.contentType);
    case '/status':
      if (!options.status) return send(res, 404, 'not found\n');
      return send(res, 200, JSON.stringify(await options.status()), 'application/json');
    default:
      return send(res, 404, 'not found\n');
  }
}

function send(res: ServerResponse, status: number, body: string, type = 'text/plain'): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}
