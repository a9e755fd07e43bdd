/**
 * The two response envelopes of section 7, read as one. The real platform's error bodies carry
 * `code` and `responseCode` together, so a body is read by whichever field it has.
 */
import { z } from 'zod';
import { SUCCESS_CODE_A, SUCCESS_CODE_B } from './codes.js';
import type { Envelope } from './operations.js';

export const ResponseBody = z
  .object({
    code: z.number().int().optional(),
    responseCode: z.string().optional(),
    message: z.string().optional(),
    result: z.unknown().optional(),
  })
  .refine((b) => b.code !== undefined || b.responseCode !== undefined, {
    message: 'a response carries code or responseCode',
  });
export type ResponseBody = z.infer<typeof ResponseBody>;

/**
 * `ResponseBody.safeParse(value)`'s data, or undefined where it fails, for what `JSON.parse`
 * (readJson) makes: every answer goes through it, and zod's object parsing costs more than the
 * rest of reading a small answer. The same checks: an object (not an array), `code` a safe
 * integer, `responseCode` and `message` strings, one of the codes there; the four keys kept,
 * others left out. A property test holds it to the schema's verdicts.
 */
export function readResponseBody(value: unknown): ResponseBody | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { code, responseCode, message, result } = value as Record<string, unknown>;
  if (code !== undefined && !Number.isSafeInteger(code)) return undefined;
  if (responseCode !== undefined && typeof responseCode !== 'string') return undefined;
  if (message !== undefined && typeof message !== 'string') return undefined;
  if (code === undefined && responseCode === undefined) return undefined;
  const body: { -readonly [K in keyof ResponseBody]: ResponseBody[K] } = {};
  if (code !== undefined) body.code = code as number;
  if (responseCode !== undefined) body.responseCode = responseCode;
  if (message !== undefined) body.message = message;
  if (result !== undefined) body.result = result;
  return body;
}

export type EnvelopeOutcome =
  | { readonly ok: true; readonly result: unknown }
  | {
      readonly ok: false;
      /** Canonical: decimal without padding, the key of PLATFORM_CODES. */
      readonly code: string;
      /** As the body carried it (`responseCode` when present), for codes the table lacks. */
      readonly rawCode: string;
      readonly message: string;
    };

/** Success is `code == 0` or `responseCode == "00000000"`; any other code is a failure. */
export function readEnvelope(body: ResponseBody): EnvelopeOutcome {
  if (body.code === SUCCESS_CODE_A || body.responseCode === SUCCESS_CODE_B) {
    return { ok: true, result: body.result };
  }
  const rawCode = body.responseCode ?? String(body.code);
  return { ok: false, code: canonicalCode(rawCode), rawCode, message: body.message ?? '' };
}

/** Codes as decimal strings without padding, so `1101`, `"1101"` and `"00001101"` are one code. */
function canonicalCode(raw: string): string {
  return /^\d+$/.test(raw) ? String(Number(raw)) : raw;
}

/** The success body of an operation, in its own envelope. */
export function successBody(envelope: Envelope, result?: unknown): ResponseBody {
  const base = envelope === 'A' ? { code: SUCCESS_CODE_A } : { responseCode: SUCCESS_CODE_B };
  return result === undefined
    ? { ...base, message: 'SUCCESS' }
    : { ...base, message: 'SUCCESS', result };
}

/** An error body as the real platform sends it: both code fields at once. */
export function errorBody(code: string, message: string): ResponseBody {
  return { code: Number(code), responseCode: code.padStart(8, '0'), message };
}
