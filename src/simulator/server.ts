/**
 * The HTTP server: platform operations by path (POST only), the admin API under /admin, nothing
 * else. Plain node:http, since the hot path must stay cheap enough for thousands of drafts a second.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { type AdminDeps, serveAdmin } from './admin/routes.js';
import { sendJson } from './http-io.js';
import { operationAt, type PlatformDeps, servePlatform } from './platform-router.js';

export function createSimulatorServer(
  platform: PlatformDeps,
  admin: AdminDeps,
  log: Logger | undefined,
): Server {
  return createServer((req, res) => {
    route(req, res, platform, admin).catch((error: unknown) => {
      // Only a broken socket gets here (handlers answer their own errors); make sure it ends.
      log?.warn({ err: error, path: req.url }, 'request aborted');
      if (!res.headersSent) sendJson(res, 500, { error: 'simulator failure' });
      else res.destroy();
    });
  });
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  platform: PlatformDeps,
  admin: AdminDeps,
): Promise<void> {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (path === '/admin' || path.startsWith('/admin/')) return serveAdmin(req, res, admin);
  const operation = operationAt(path);
  if (!operation) return notFound(req, res, `no operation at ${path}`, 404);
  if (req.method !== 'POST') return notFound(req, res, `${path} accepts POST only`, 405);
  return servePlatform(operation, req, res, platform);
}

function notFound(
  req: IncomingMessage,
  res: ServerResponse,
  message: string,
  status: number,
): void {
  req.resume();
  sendJson(res, status, { message });
}
