import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readJson, writeJson } from './json-text.js';

const TWO_53 = 2n ** 53n;
const NINETEEN_DIGITS = '3141592653589793242';
const NONE = new Set<string>();

describe('readJson', () => {
  it('when an integer is 2^53 + 1, then it comes back as its exact decimal string', () => {
    const text = `{"id":${TWO_53 + 1n}}`;
    expect(JSON.parse(text)).toEqual({ id: 9007199254740992 }); // what JSON.parse makes of it
    expect(readJson(text)).toEqual({ id: '9007199254740993' });
  });

  it('when an integer is 2^53 - 1 (the largest exact one), then it stays a number', () => {
    expect(readJson(`{"id":${TWO_53 - 1n}}`)).toEqual({ id: Number.MAX_SAFE_INTEGER });
  });

  it('when an integer is 2^53 itself, then it is a string: a number could not tell it from 2^53 + 1', () => {
    expect(readJson(`[${TWO_53}]`)).toEqual(['9007199254740992']);
  });

  it('when a 19-digit id is a number anywhere in the document, then every digit is kept', () => {
    const text = `{"result":{"id":${NINETEEN_DIGITS},"ids":[1,${NINETEEN_DIGITS}],"neg":-${NINETEEN_DIGITS}}}`;
    expect(readJson(text)).toEqual({
      result: { id: NINETEEN_DIGITS, ids: [1, NINETEEN_DIGITS], neg: `-${NINETEEN_DIGITS}` },
    });
  });

  it('when digits stand inside strings, with escapes and quotes, then the strings are untouched', () => {
    const text = String.raw`{"a":"x\" ${NINETEEN_DIGITS} \\","b":${NINETEEN_DIGITS},"c":"\\"}`;
    expect(readJson(text)).toEqual({ a: `x" ${NINETEEN_DIGITS} \\`, b: NINETEEN_DIGITS, c: '\\' });
  });

  it('when a long number has a fraction or an exponent, then it stays a number (it is no id)', () => {
    expect(readJson('[12345678901234567890.5,1e400,12345678901234567890e2]')).toEqual([
      Number('12345678901234567890.5'),
      Number.POSITIVE_INFINITY,
      Number('12345678901234567890e2'),
    ]);
  });

  it('when the text is not JSON, then it throws SyntaxError like JSON.parse', () => {
    for (const text of ['', '{', `{"a":${NINETEEN_DIGITS}`, `["x ${NINETEEN_DIGITS}]`, '0123']) {
      expect(() => readJson(text), text).toThrow(SyntaxError);
    }
  });

  it('when the whole text is one unsafe integer, or numbers follow whitespace, then they are kept too', () => {
    expect(readJson(` ${NINETEEN_DIGITS} `)).toBe(NINETEEN_DIGITS);
    expect(readJson(`[\n  ${NINETEEN_DIGITS},\t${NINETEEN_DIGITS}]`)).toEqual([
      NINETEEN_DIGITS,
      NINETEEN_DIGITS,
    ]);
  });

  it('when a string is megabytes long, then it is read without a stack overflow', () => {
    const long = 'x'.repeat(4_000_000);
    expect(readJson(`{"s":"${long}","id":${NINETEEN_DIGITS}}`)).toEqual({
      s: long,
      id: NINETEEN_DIGITS,
    });
  });

  it('when a key is __proto__, then it is an own property as JSON.parse makes it', () => {
    const value = readJson(`{"__proto__":{"x":${NINETEEN_DIGITS}}}`) as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('for any JSON, then it reads as JSON.parse with only the unsafe integer literals as strings', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(readJson(text)).toEqual(
          JSON.parse(text, (_key, v) => (plainUnsafe(v) ? String(v) : v)),
        );
      }),
    );
  });

  it('for any integer, then it reads back exactly: as a number when safe, else as its digits', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (n) => {
        const safe = n >= -(TWO_53 - 1n) && n <= TWO_53 - 1n;
        expect(readJson(`{"n":${n}}`)).toEqual({ n: safe ? Number(n) : n.toString() });
      }),
    );
  });
});

/** JSON.stringify writes such a double as its plain integer digits (from 1e21 on, with an exponent). */
function plainUnsafe(value: unknown): boolean {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    !Number.isSafeInteger(value) &&
    Math.abs(value) < 1e21
  );
}

describe('writeJson', () => {
  const paths = new Set(['contractId', 'signatory.actions.*.corpSealIds.*']);

  it('when a decimal string sits at a number path, then it is written as a bare number with every digit', () => {
    const text = writeJson(
      {
        contractId: NINETEEN_DIGITS,
        signatory: { actions: [{ corpSealIds: ['9007199254740993', '7'] }, {}] },
      },
      paths,
    );
    expect(text).toBe(
      `{"contractId":${NINETEEN_DIGITS},"signatory":{"actions":[{"corpSealIds":[9007199254740993,7]},{}]}}`,
    );
    expect(readJson(text)).toEqual({
      contractId: NINETEEN_DIGITS,
      signatory: { actions: [{ corpSealIds: ['9007199254740993', 7] }, {}] },
    });
  });

  it('when a string at a number path is not a JSON integer, then it stays a string', () => {
    for (const value of ['007', '12a', '', '1e5', '+1']) {
      expect(writeJson({ contractId: value }, paths)).toBe(JSON.stringify({ contractId: value }));
    }
  });

  it('when a decimal string sits elsewhere, then it stays a string', () => {
    expect(writeJson({ bizId: NINETEEN_DIGITS, signatory: { id: '1' } }, paths)).toBe(
      `{"bizId":"${NINETEEN_DIGITS}","signatory":{"id":"1"}}`,
    );
  });

  it('for any plain JSON data without number paths, then it writes exactly as JSON.stringify', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(writeJson(value, NONE)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('for any plain data and number paths, then it writes as the rule says, walked key by key', () => {
    const keys = ['a', 'b', 'c'];
    const leaf = fc.oneof(
      fc.constantFrom('12345678901234567890', '007', '7', '-3', '1e5', '', '-0'),
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
    );
    const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('tree'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom(...keys), tie('tree'), { maxKeys: 3 }),
      ),
    }));
    const numberPaths = fc
      .uniqueArray(
        fc.constantFrom('', 'a', 'b', '*', 'a.b', 'a.*', 'a.*.b', '*.c', 'b.*.*', 'c.a.b'),
        {
          minLength: 1,
          maxLength: 4,
        },
      )
      .map((paths) => new Set(paths));
    fc.assert(
      fc.property(tree, numberPaths, (value, paths) => {
        expect(writeJson(value, paths)).toBe(byTheRule(value, '', paths) ?? 'null');
      }),
      { numRuns: 2000 },
    );
  });

  it('when values are undefined, holes or have their own JSON form, then it writes as JSON.stringify', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test.
    const value = { a: undefined, b: [undefined, , 1], c: new Date(0), d: null, e: () => 1 };
    expect(writeJson(value, NONE)).toBe(JSON.stringify(value));
  });
});

/** The rule, walked key by key: a JSON integer's digits at a number path, else JSON.stringify. */
function byTheRule(value: unknown, path: string, paths: ReadonlySet<string>): string | undefined {
  if (typeof value === 'string' && paths.has(path) && /^-?(?:0|[1-9]\d*)$/.test(value))
    return value;
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (Array.isArray(value)) {
    return `[${value.map((item) => byTheRule(item, at('*'), paths) ?? 'null').join(',')}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).flatMap(([key, item]) => {
      const text = byTheRule(item, at(key), paths);
      return text === undefined ? [] : [`${JSON.stringify(key)}:${text}`];
    });
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}
