/**
 * From bytes to an operation's request: JSON or multipart as the OPERATIONS table says, then the
 * shared zod request schema. Anything malformed, missing or out of range is 11990005.
 */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { readJson } from '../schemas/platform/json-text.js';
import { OPERATIONS, type OperationName } from '../schemas/platform/operations.js';
import { parseMultipart, readBody } from './http-io.js';
import { refuse } from './refusal.js';

export interface RequestLimits {
  /** Largest JSON body accepted. */
  readonly jsonBytes: number;
  /** Largest multipart body (the file and its fields) accepted. */
  readonly uploadBytes: number;
}

export interface DecodedBody {
  readonly fields: unknown;
  readonly file?: Uint8Array | undefined;
}

export async function decodeBody(
  operation: OperationName,
  req: IncomingMessage,
  limits: RequestLimits,
): Promise<DecodedBody> {
  const multipart = OPERATIONS[operation].body === 'multipart';
  const limit = multipart ? limits.uploadBytes : limits.jsonBytes;
  const body =
    (await readBody(req, limit)) ?? refuse('11990005', `the body exceeds ${limit} bytes`);
  if (!multipart) return { fields: parseJson(body) };
  const contentType = req.headers['content-type'] ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    refuse('11990005', 'the body must be multipart/form-data');
  }
  try {
    const { fields, files } = await parseMultipart(body, contentType);
    return { fields, file: files.file };
  } catch {
    return refuse('11990005', 'the multipart body cannot be parsed');
  }
}

/** The shared request schema's verdict; the add-by-file upload rides along as `file`. */
export function parseRequest(operation: OperationName, decoded: DecodedBody): unknown {
  const parsed = OPERATIONS[operation].request.safeParse(decoded.fields);
  if (!parsed.success) refuse('11990005', describe(parsed.error));
  return decoded.file ? { ...(parsed.data as object), file: decoded.file } : parsed.data;
}

/**
 * The contract a body names, and the signatory a reminder names, even when it fails the schema,
 * for the call log.
 */
export function refsOf(fields: unknown): {
  bizId?: string;
  contractId?: string;
  signatoryId?: string;
} {
  if (typeof fields !== 'object' || fields === null) return {};
  const { bizId, contractId, signatoryId } = fields as Record<string, unknown>;
  return {
    ...(typeof bizId === 'string' ? { bizId } : {}),
    ...(typeof contractId === 'string' || typeof contractId === 'number'
      ? { contractId: String(contractId) }
      : {}),
    ...(typeof signatoryId === 'string' ? { signatoryId } : {}),
  };
}

function parseJson(body: Buffer): unknown {
  try {
    // A Long sent as a bare 19-digit number arrives whole, as the real platform reads it.
    return readJson(body.toString('utf8'));
  } catch {
    return refuse('11990005', 'the body is not valid JSON');
  }
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
}
