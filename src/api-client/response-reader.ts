/**
 * One result model for both envelopes. The JSON body is read before the HTTP status, because
 * the platform answers authentication failures as HTTP 441/442 with an ordinary error body.
 */
import type { z } from 'zod';
import {
  type CallContext,
  PlatformRejected,
  ResponseInvalid,
  UnexpectedHttpStatus,
} from '../errors.js';
import { invalidFields } from '../schemas/issues.js';
import { readAnswer, type UnlistedValue } from '../schemas/platform/answers.js';
import { findPlatformCode } from '../schemas/platform/codes.js';
import {
  type ResponseBody,
  readEnvelope,
  readResponseBody,
} from '../schemas/platform/envelopes.js';
import { readJson } from '../schemas/platform/json-text.js';

export interface HttpAnswer {
  readonly statusCode: number;
  readonly body: string;
  /** The `retry-after` header, when the platform sent one (with a 429, say). */
  readonly retryAfter?: string;
  /**
   * The `content-type` header as sent, when there was one: with the status, what tells a proxy's
   * HTML page from the platform's JSON.
   */
  readonly contentType?: string;
}

/** The most of an answer's text an error quotes, in characters. */
export const EXCERPT_LENGTH = 200;

export interface ReadResult<T> {
  readonly result: T;
  /** Statuses and types the spec does not list, kept in `result` as received. */
  readonly unlisted: readonly UnlistedValue[];
}

/**
 * The operation's result, or the error the answer amounts to. A value the spec does not list
 * where it enumerates (a new status) does not make the answer invalid: the call took effect.
 */
export function readResponse<R extends z.ZodType>(
  resultSchema: R,
  answer: HttpAnswer,
  context: CallContext,
): ReadResult<z.output<R>> {
  const body = envelopeOf(answer.body);
  if (body === undefined) throw withoutEnvelope(answer, context);
  const outcome = readEnvelope(body);
  if (!outcome.ok) {
    throw platformRejected(outcome.code, outcome.rawCode, outcome.message, answer, context);
  }
  const reading = readAnswer(resultSchema, outcome.result);
  if (reading.success) return { result: reading.data, unlisted: reading.unlisted };
  throw new ResponseInvalid(`${context.operation}: the platform's result does not match the spec`, {
    details: {
      ...context,
      reason: 'shape',
      httpStatus: answer.statusCode,
      ...contentTypeOf(answer),
      fields: invalidFields(reading.error),
    },
  });
}

/** At most EXCERPT_LENGTH characters, never half of a surrogate pair. */
export function excerpt(text: string): string {
  if (text.length <= EXCERPT_LENGTH) return text;
  const cut = text.slice(0, EXCERPT_LENGTH);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** `{ contentType }` (an excerpt) when the answer had one; no key rather than `undefined`. */
function contentTypeOf(answer: HttpAnswer): { contentType?: string } {
  return answer.contentType === undefined ? {} : { contentType: excerpt(answer.contentType) };
}

function envelopeOf(text: string): ResponseBody | undefined {
  let json: unknown;
  try {
    // The platform's ids are numbers beyond 2^53: read them whole, as strings.
    json = readJson(text);
  } catch {
    return undefined;
  }
  return readResponseBody(json);
}

/** A code the table lacks is kept as it came, with family 'unknown': never swallowed. */
function platformRejected(
  code: string,
  rawCode: string,
  message: string,
  answer: HttpAnswer,
  context: CallContext,
): PlatformRejected {
  const known = findPlatformCode(code);
  const label = known ? `${code} ${known.name}` : `unknown code ${rawCode}`;
  return new PlatformRejected(
    `${context.operation} rejected by the platform: ${label}: ${message}`,
    {
      details: {
        ...context,
        platformCode: code,
        rawCode,
        platformName: known?.name,
        platformMessage: message,
        httpStatus: answer.statusCode,
        family: known?.family ?? 'unknown',
      },
    },
  );
}

/**
 * No envelope: a status the code table knows (429, 441, ...) is still the platform speaking;
 * anything else non-2xx came from something in between (a proxy's 502, a gateway's 504).
 */
function withoutEnvelope(answer: HttpAnswer, context: CallContext): Error {
  const { statusCode } = answer;
  const known = findPlatformCode(String(statusCode));
  if (known?.httpStatus === statusCode) {
    return platformRejected(known.code, known.code, known.meaning, answer, context);
  }
  if (statusCode >= 200 && statusCode < 300) {
    return new ResponseInvalid(`${context.operation}: HTTP ${statusCode} without a JSON envelope`, {
      details: {
        ...context,
        reason: 'not-envelope',
        httpStatus: statusCode,
        ...contentTypeOf(answer),
        fields: [{ path: '(body)', rule: 'must be a JSON object with code or responseCode' }],
      },
    });
  }
  return new UnexpectedHttpStatus(`${context.operation}: unexpected HTTP ${statusCode}`, {
    details: {
      ...context,
      httpStatus: statusCode,
      ...contentTypeOf(answer),
      bodyExcerpt: excerpt(answer.body),
    },
  });
}
