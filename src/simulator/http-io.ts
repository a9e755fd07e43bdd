/** Reading request bodies and writing JSON answers over plain node:http, kept lean for the hot path. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeJson } from '../schemas/platform/json-text.js';

export const JSON_TYPE = 'application/json;charset=UTF-8';

/** `numberPaths`: where the body holds Longs, written as bare numbers as the platform does. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  numberPaths?: ReadonlySet<string>,
): void {
  sendJsonText(res, status, jsonText(body, numberPaths));
}

/** The body as the platform writes it: Longs at `numberPaths` as bare numbers. */
export function jsonText(body: unknown, numberPaths?: ReadonlySet<string>): string {
  return numberPaths?.size ? writeJson(body, numberPaths) : JSON.stringify(body);
}

export function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The whole body, or undefined when it exceeds `limit`. An oversized body is still read to the
 * end (and discarded) so the answer reaches a client that is still writing.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  // Events rather than `for await`: the async iterator costs more than the body on the hot path.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.once('error', reject);
    req.once('end', () => {
      if (size > limit) resolve(undefined);
      else resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks));
    });
  });
}

export interface MultipartBody {
  readonly fields: Record<string, string>;
  readonly files: Record<string, Uint8Array>;
}

/** Parsed by the web Response's formData(), which Node ships with; no extra dependency. */
export async function parseMultipart(body: Buffer, contentType: string): Promise<MultipartBody> {
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  const fields: Record<string, string> = {};
  const files: Record<string, Uint8Array> = {};
  for (const [name, value] of form) {
    if (typeof value === 'string') fields[name] = value;
    else files[name] = new Uint8Array(await value.arrayBuffer());
  }
  return { fields, files };
}
