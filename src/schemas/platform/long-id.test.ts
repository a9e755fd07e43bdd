import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJson, writeJson } from './json-text.js';
import { OPERATIONS } from './operations.js';
import { LongId } from './primitives.js';
import { longIdPaths, pathsWhere } from './schema-paths.js';

const TWO_53_PLUS_1 = '9007199254740993';
const NINETEEN_DIGITS = '3141592653589793242';
const LONG_MAX = '9223372036854775807';

describe('LongId', () => {
  it('when the id is 2^53 + 1 or 19 digits as a string, then it is kept digit for digit', () => {
    expect(LongId.parse(TWO_53_PLUS_1)).toBe(TWO_53_PLUS_1);
    expect(LongId.parse(NINETEEN_DIGITS)).toBe(NINETEEN_DIGITS);
  });

  it('when the id is exactly Long.MAX_VALUE, then it is accepted; one more is refused', () => {
    expect(LongId.parse(LONG_MAX)).toBe(LONG_MAX);
    expect(LongId.safeParse('9223372036854775808').error?.issues[0]?.message).toBe(
      'must be at most 2^63 - 1',
    );
  });

  it('when a number is exact (2^53 - 1 at most), then it becomes its decimal string', () => {
    expect(LongId.parse(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
    expect(LongId.parse(7)).toBe('7');
  });

  it('when a number is 2^53 or more, then it is refused: it may already have lost digits', () => {
    expect(LongId.safeParse(2 ** 53).error?.issues.map((i) => i.message)).toEqual([
      'must be a whole number below 2^53 (send a larger id as a string)',
    ]);
  });

  it('when the string has leading zeros, then it is read as its canonical decimal', () => {
    expect(LongId.parse('007')).toBe('7');
  });

  it('when the string is not a decimal of 1 to 19 digits, then it is refused', () => {
    for (const value of ['', '-1', '1.5', '12345678901234567890', ' 1', 'abc']) {
      expect(LongId.safeParse(value).success, value).toBe(false);
    }
  });
});

describe('longIdPaths', () => {
  it("when a request types ids as Long, then its paths are found from the schema: add-signatory's contractId and every corpSealIds", () => {
    expect([...longIdPaths(OPERATIONS.addSignatory.request)].sort()).toEqual([
      'contractId',
      'signatory.actions.*.corpSealIds.*',
    ]);
    expect([...longIdPaths(OPERATIONS.createDraft.request)]).toEqual([
      'signatories.*.actions.*.corpSealIds.*',
    ]);
    expect([...longIdPaths(OPERATIONS.remindSignatories.request)]).toEqual([]);
  });

  it('when a prefix is given, then every path starts below it', () => {
    expect([...longIdPaths(OPERATIONS.addSignatory.result, 'result')]).toEqual([
      'result.actions.*.corpSealIds.*',
    ]);
  });

  it('when wrappers nest (optional, nullable, default, pipe, union), then the walk looks through them', () => {
    const schema = z.object({
      a: LongId.nullable().optional(),
      b: z.array(LongId).default([]),
      c: z.union([z.object({ d: LongId }), z.string()]),
      e: z.string().transform(Number).pipe(z.number()),
    });
    expect(pathsWhere(schema, (s) => s === LongId)).toEqual(['a', 'b.*', 'c.d']);
  });

  it('when an add-signatory request is written and read back, then its 19-digit contractId travels as a bare number and returns whole', () => {
    const { request } = OPERATIONS.addSignatory;
    const parsed = request.parse({
      contractId: NINETEEN_DIGITS,
      signatory: {
        tenantType: 'COMPANY',
        tenantName: 'Acme',
        receiver: { contact: '13900000001', contactType: 'MOBILE' },
        actions: [{ type: 'COMPANY', corpSealIds: [TWO_53_PLUS_1] }],
      },
    });
    const text = writeJson(parsed, longIdPaths(request));
    expect(text).toContain(`"contractId":${NINETEEN_DIGITS},`);
    expect(text).toContain(`"corpSealIds":[${TWO_53_PLUS_1}]`);
    expect(request.parse(readJson(text))).toEqual(parsed);
  });
});
