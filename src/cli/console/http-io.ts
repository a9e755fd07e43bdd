/**
 * The console's HTTP answers and what it reads of requests, with their bounds. Every answer
 * carries the same security headers: a strict Content-Security-Policy (scripts, styles and
 * everything else from the console itself only, no inline script or style, no framing, forms
 * posting only to itself), no sniffing, no referrer to other sites, and nothing cached but the hashed assets.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Html } from './html.js';

/** Longer request lines are refused (414): a search is a few hundred characters. */
export const URL_MAX = 8_192;
/** Larger forms are refused (413): a thousand dead letters named is about 30 KB. */
export const BODY_MAX = 65_536;

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` with the forms' POSTs.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
} as const;

export function sendHtml(
  res: ServerResponse,
  status: number,
  body: Html,
  headers: Record<string, string> = {},
): void {
  send(res, status, body.text, 'text/html; charset=utf-8', headers);
}

export function send(
  res: ServerResponse,
  status: number,
  body: string,
  type: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    'content-type': type,
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

export function redirect(
  res: ServerResponse,
  to: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(303, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    location: to,
    ...headers,
  });
  res.end();
}

/** Starts an event stream (server-sent events). */
export function startEvents(res: ServerResponse): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'cache-control': 'no-store',
    'content-type': 'text/event-stream; charset=utf-8',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
}

export class BodyTooLarge extends Error {}

/**
 * A form (application/x-www-form-urlencoded) of at most BODY_MAX bytes; BodyTooLarge past it.
 * The request is left as it is then (not destroyed, which would take the answer's socket with
 * it): the answer closes the connection.
 */
export function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > BODY_MAX) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_MAX) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      reject(new BodyTooLarge());
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () => {
      const type = req.headers['content-type'] ?? '';
      const form = type.startsWith('application/x-www-form-urlencoded')
        ? Buffer.concat(chunks)
        : '';
      resolve(new URLSearchParams(form.toString()));
    });
  });
}

/** Whether the browser reached the console over HTTPS (directly, or as its proxy says). */
export function overHttps(req: IncomingMessage): boolean {
  const forwarded = req.headers['x-forwarded-proto'];
  return (
    (req.socket as { encrypted?: boolean }).encrypted === true ||
    (typeof forwarded === 'string' && forwarded.split(',')[0]?.trim() === 'https')
  );
}
