import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLATFORM_CODES } from './codes.js';
import {
  errorBody,
  ResponseBody,
  readEnvelope,
  readResponseBody,
  successBody,
} from './envelopes.js';
import { readJson } from './json-text.js';

describe('readEnvelope', () => {
  it('when envelope A says code 0, then the result is returned', () => {
    expect(readEnvelope({ code: 0, message: 'ok', result: { documentId: 'd' } })).toEqual({
      ok: true,
      result: { documentId: 'd' },
    });
  });

  it('when envelope B says 00000000, then it is a success without result', () => {
    expect(readEnvelope({ responseCode: '00000000', message: 'ok' })).toEqual({
      ok: true,
      result: undefined,
    });
  });

  it('when envelope A fails, then its code is the canonical key', () => {
    expect(readEnvelope({ code: 1101, message: 'status' })).toEqual({
      ok: false,
      code: '1101',
      rawCode: '1101',
      message: 'status',
    });
  });

  it('when both fields come at once, then one code is read and the padding kept as raw', () => {
    expect(readEnvelope({ code: 1112, responseCode: '00001112', message: 'dup' })).toMatchObject({
      ok: false,
      code: '1112',
      rawCode: '00001112',
    });
  });

  it('when an envelope-B code is padded, then it maps to the same table key', () => {
    expect(readEnvelope({ responseCode: '00000442', message: 'x' })).toMatchObject({ code: '442' });
  });

  it('when a code is not numeric, then it is kept exactly', () => {
    expect(readEnvelope({ responseCode: 'E-42', message: 'x' })).toMatchObject({
      ok: false,
      code: 'E-42',
      rawCode: 'E-42',
    });
  });

  it('when a message is missing, then it reads as empty rather than undefined', () => {
    expect(readEnvelope({ code: 1403 })).toMatchObject({ message: '' });
  });

  it('when the simulator writes an error body for any table code, then it reads back as that code', () => {
    for (const code of PLATFORM_CODES.keys()) {
      expect(readEnvelope(errorBody(code, 'm'))).toMatchObject({ ok: false, code });
    }
  });

  it('when a success body is written for either envelope, then it reads back as success', () => {
    expect(readEnvelope(successBody('A', { id: 'c' }))).toEqual({ ok: true, result: { id: 'c' } });
    expect(readEnvelope(successBody('B'))).toEqual({ ok: true, result: undefined });
  });
});

describe('readResponseBody', () => {
  /** What the schema makes of a value: its data, or undefined when it refuses it. */
  const bySchema = (value: unknown) => {
    const parsed = ResponseBody.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  };
  const anyValue = fc.oneof(
    fc.jsonValue(),
    fc.constantFrom(
      0,
      -0,
      1.5,
      2 ** 53 - 1,
      2 ** 53,
      -(2 ** 53),
      1e21,
      '0',
      '00000000',
      null,
      true,
    ),
  );
  /** Bodies with the envelope's keys, each present or not, of any type. */
  const bodies = fc.record(
    {
      code: fc.oneof(fc.integer(), anyValue),
      responseCode: fc.oneof(fc.string(), anyValue),
      message: fc.oneof(fc.string(), anyValue),
      result: anyValue,
      other: anyValue,
    },
    { requiredKeys: [] },
  );

  it('for any JSON value or envelope-like body, then it reads as ResponseBody.safeParse does', () => {
    fc.assert(
      fc.property(fc.oneof(bodies, anyValue, fc.array(bodies)), (value) => {
        expect(readResponseBody(value)).toStrictEqual(bySchema(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('for the texts the platform and the misbehaving answers send, then it reads as the schema does', () => {
    const texts = [
      '{"code":0,"message":"SUCCESS","result":{"id":1234567890123456789}}',
      '{"responseCode":"00000000","message":"SUCCESS"}',
      '{"code":1101,"responseCode":"00001101","message":"status"}',
      '{"code":"0"}',
      '{"code":12345678901234567890}',
      '{"message":"no code"}',
      '[{"code":0}]',
      '{"code":0,"result":null}',
    ];
    for (const text of texts) {
      const json = readJson(text);
      expect(readResponseBody(json)).toStrictEqual(bySchema(json));
    }
  });
});
