import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { PlatformRejected, ResponseInvalid, UnexpectedHttpStatus } from '../errors.js';
import { PLATFORM_CODES } from '../schemas/platform/codes.js';
import { errorBody } from '../schemas/platform/envelopes.js';
import { OPERATIONS } from '../schemas/platform/operations.js';
import { readResponse } from './response-reader.js';

const context = { operation: 'initiateContract', bizId: 'biz-1', contractId: undefined };
const documentResult = OPERATIONS.addDocumentByTemplate.result;
const noResult = OPERATIONS.initiateContract.result;

function read(statusCode: number, body: unknown, schema: z.ZodType = noResult) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return () => readResponse(schema, { statusCode, body: text }, context);
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('readResponse', () => {
  it('when envelope A succeeds, then the result is parsed with the operation schema', () => {
    expect(
      read(200, { code: 0, message: 'ok', result: { documentId: 'd1' } }, documentResult)(),
    ).toEqual({ result: { documentId: 'd1' }, unlisted: [] });
  });

  it('when envelope B succeeds, then an operation without result returns undefined', () => {
    expect(read(200, { responseCode: '00000000', message: 'ok' })().result).toBeUndefined();
  });

  it('when the platform answers a table code, then PlatformRejected carries its family and context', () => {
    const error = thrown(read(200, { code: 1108, message: 'keyword missing' }));
    expect(error).toBeInstanceOf(PlatformRejected);
    expect((error as PlatformRejected).details).toEqual({
      ...context,
      platformCode: '1108',
      rawCode: '1108',
      platformName: 'KEYWORD NOT FOUND',
      platformMessage: 'keyword missing',
      httpStatus: 200,
      family: 'business',
    });
    expect((error as PlatformRejected).retryable).toBe(false);
  });

  it('when any code of the table comes back as the platform writes it, then it maps to that row', () => {
    for (const row of PLATFORM_CODES.values()) {
      const error = thrown(read(row.httpStatus ?? 200, errorBody(row.code, row.meaning)));
      expect(error).toBeInstanceOf(PlatformRejected);
      expect((error as PlatformRejected).details).toMatchObject({
        platformCode: row.code,
        family: row.family,
        httpStatus: row.httpStatus ?? 200,
      });
      expect((error as PlatformRejected).retryable).toBe(row.retryable);
    }
  });

  it('when an 8-digit envelope-B code comes alone, then it maps to its row', () => {
    const error = thrown(read(200, { responseCode: '11011107', message: 'not your turn' }));
    expect((error as PlatformRejected).details).toMatchObject({
      platformCode: '11011107',
      family: 'business',
    });
  });

  it('when the code is unknown, then it is preserved with family unknown, code and message kept', () => {
    const error = thrown(read(200, { code: 7777, responseCode: '00007777', message: 'new rule' }));
    expect(error).toBeInstanceOf(PlatformRejected);
    expect((error as PlatformRejected).details).toMatchObject({
      platformCode: '7777',
      rawCode: '00007777',
      platformName: undefined,
      platformMessage: 'new rule',
      family: 'unknown',
    });
    expect((error as Error).message).toContain('00007777');
    expect((error as PlatformRejected).retryable).toBe(false);
  });

  it('when HTTP 441 carries a JSON body, then the body decides, not the status', () => {
    const error = thrown(read(441, { code: 441, message: 'header x missing' }));
    expect((error as PlatformRejected).details).toMatchObject({
      platformCode: '441',
      family: 'auth',
      platformMessage: 'header x missing',
      httpStatus: 441,
    });
  });

  it('when HTTP 429 comes without a JSON body, then it is the throttling code and retryable', () => {
    const error = thrown(read(429, 'slow down'));
    expect((error as PlatformRejected).details).toMatchObject({
      platformCode: '429',
      family: 'throttled',
    });
    expect((error as PlatformRejected).retryable).toBe(true);
  });

  it('when a proxy answers 502 with HTML, then UnexpectedHttpStatus is retryable with an excerpt', () => {
    const error = thrown(read(502, `<html>${'x'.repeat(500)}</html>`));
    expect(error).toBeInstanceOf(UnexpectedHttpStatus);
    expect((error as UnexpectedHttpStatus).retryable).toBe(true);
    expect((error as UnexpectedHttpStatus).details.bodyExcerpt).toHaveLength(200);
  });

  it('when a 500 has no envelope, then UnexpectedHttpStatus is not retried', () => {
    expect((thrown(read(500, '')) as UnexpectedHttpStatus).retryable).toBe(false);
  });

  it('when HTTP 200 has no envelope, then the response is invalid', () => {
    expect(thrown(read(200, '{"ok":true}'))).toBeInstanceOf(ResponseInvalid);
    expect(thrown(read(200, 'not json'))).toBeInstanceOf(ResponseInvalid);
  });

  it('when HTTP 200 is an HTML page, then ResponseInvalid says not-envelope with its content type', () => {
    const answer = { statusCode: 200, body: '<html>login</html>', contentType: 'text/html' };
    const error = thrown(() => readResponse(noResult, answer, context));
    expect(error).toBeInstanceOf(ResponseInvalid);
    expect((error as ResponseInvalid).details).toMatchObject({
      reason: 'not-envelope',
      httpStatus: 200,
      contentType: 'text/html',
    });
  });

  it('when an envelope breaks the shape, then ResponseInvalid says shape; without a content type it has none', () => {
    const error = thrown(read(200, { code: 0, result: { documentId: 5 } }, documentResult));
    expect((error as ResponseInvalid).details.reason).toBe('shape');
    expect((error as ResponseInvalid).details).not.toHaveProperty('contentType');
  });

  it('when a non-2xx answer has no envelope, then UnexpectedHttpStatus keeps its content type, bounded', () => {
    const long = `text/html; ${'x'.repeat(500)}`;
    const answer = { statusCode: 503, body: 'down', contentType: long };
    const error = thrown(() => readResponse(noResult, answer, context)) as UnexpectedHttpStatus;
    expect(error.details.contentType).toBe(long.slice(0, 200));
    expect(error.details.bodyExcerpt).toBe('down');
  });

  it('when the excerpt would cut a character in two, then it stops before it', () => {
    const body = `${'x'.repeat(199)}😀${'y'.repeat(10)}`;
    const error = thrown(read(502, body)) as UnexpectedHttpStatus;
    expect(error.details.bodyExcerpt).toBe('x'.repeat(199));
  });

  it('when a draft comes back with a contract status and an action type the spec does not list, then the result keeps them and names them', () => {
    const draft = {
      id: 'c1',
      status: 'ARCHIVING',
      signatories: [
        {
          tenantType: 'COMPANY',
          actions: [{ type: 'COMPANY' }, { type: 'NOTARY', status: 'INIT' }],
        },
      ],
    };
    const read200 = read(200, { code: 0, result: draft }, OPERATIONS.createDraft.result);
    expect(read200()).toEqual({
      result: draft,
      unlisted: [
        { path: 'status', value: 'ARCHIVING' },
        { path: 'signatories[0].actions[1].type', value: 'NOTARY' },
      ],
    });
  });

  it('when an unlisted value is longer than 64 characters or not a string, then the result is invalid', () => {
    const schema = OPERATIONS.createDraft.result;
    for (const status of ['X'.repeat(65), 7]) {
      const error = thrown(read(200, { code: 0, result: { id: 'c1', status } }, schema));
      expect(error).toBeInstanceOf(ResponseInvalid);
      expect((error as ResponseInvalid).details.fields.map((f) => f.path)).toEqual(['status']);
    }
    expect(read(200, { code: 0, result: { status: 'X'.repeat(64) } }, schema)().unlisted).toEqual([
      { path: 'status', value: 'X'.repeat(64) },
    ]);
  });

  it('when the result breaks the spec shape, then ResponseInvalid names the field', () => {
    const error = thrown(read(200, { code: 0, result: { documentId: 5 } }, documentResult));
    expect(error).toBeInstanceOf(ResponseInvalid);
    expect((error as ResponseInvalid).details.fields).toEqual([
      { path: 'documentId', rule: expect.stringContaining('string') },
    ]);
  });
});
