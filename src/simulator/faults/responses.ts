/**
 * How a fault that acts instead of the operation reaches the client (answer-writers.ts has those
 * that spoil the answer of an operation that ran). Each function leaves the request body
 * drained or the connection gone, so keep-alive connections are never left half-read.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { platformCode } from '../../schemas/platform/codes.js';
import { errorBody } from '../../schemas/platform/envelopes.js';

/** What a load balancer or proxy in front of the platform sends: a bare 503, not JSON. */
export function answerServiceUnavailable(req: IncomingMessage, res: ServerResponse): void {
  const body = 'Service Unavailable\n';
  req.resume();
  res
    .writeHead(503, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    })
    .end(body);
}

const MAINTENANCE_PAGE = `<!DOCTYPE html>
<html>
<head><meta charset="utf-8"><title>Service maintenance</title></head>
<body><h1>We are down for maintenance</h1><p>The service is being upgraded. Please try again later.</p></body>
</html>
`;

/**
 * What a gateway serves while the platform behind it is being upgraded: an HTML page, with 200
 * as often as with 502, 503 or 404, so a client cannot trust the status alone.
 */
export function answerMaintenance(req: IncomingMessage, res: ServerResponse, status: number): void {
  req.resume();
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(MAINTENANCE_PAGE),
    })
    .end(MAINTENANCE_PAGE);
}

/** A platform error in its own JSON body and HTTP status (200 unless the code table says). */
export function answerPlatformError(
  req: IncomingMessage,
  res: ServerResponse,
  code: '21990001' | '429',
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(errorBody(code, message));
  req.resume();
  res
    .writeHead(platformCode(code).httpStatus ?? 200, {
      ...headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    })
    .end(body);
}

/**
 * Drops the connection without an answer. A TCP reset (RST) is what a crashed peer or a
 * middlebox sends, so clients see ECONNRESET; other sockets (a Unix socket) are just closed.
 */
export function resetConnection(req: IncomingMessage): void {
  const socket = req.socket;
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

/**
 * Never answers. The body is drained so the client's upload completes, as it would against a
 * server stuck after reading; nothing is held but the open response, which goes when the client
 * gives up and closes the connection. No timer is involved, so nothing can leak.
 */
export function hang(req: IncomingMessage): void {
  req.resume();
}

/**
 * Resolves after `ms`, true if the client is still there; false, at once, if it closes the
 * connection meanwhile (the timer is then cleared).
 */
export function waitWhileConnected(ms: number, res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}
