/**
 * Timestamp reads a formatted value digit by digit; its verdicts and issues must be those of the
 * rule it had before: the value's numbers must make the same Date back (the oracle below).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
// The former rule, which Timestamp still applies to what its format refuses.
import { roundTrips, Timestamp } from './primitives.js';

const Reference = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'must be formatted yyyy-MM-dd HH:mm:ss')
  .refine(roundTrips, 'must be a real date and time (yyyy-MM-dd HH:mm:ss)');

const padded = (width: number, max: number) =>
  fc.nat(max).map((n) => String(n).padStart(width, '0'));
/** Formatted values around the calendar's edges: months 0 to 13, days 0 to 32, leap years. */
const formatted = fc
  .tuple(
    fc.oneof(padded(4, 9999), fc.constantFrom('0000', '0099', '0100', '1900', '2000', '2100')),
    padded(2, 13),
    padded(2, 32),
    padded(2, 25),
    padded(2, 61),
    padded(2, 61),
  )
  .map(([y, mo, d, h, mi, s]) => `${y}-${mo}-${d} ${h}:${mi}:${s}`);
/** Values the format refuses, some of which the round trip takes (`2026-1-1 1:0:0`). */
const malformed = fc.oneof(
  fc.string({ maxLength: 24 }),
  formatted.map((v) => `${v} `),
  formatted.map((v) => `+${v}`),
  formatted.map((v) => v.replace(/(^|[- :])0/g, '$1')),
  formatted.map((v) => v.replace(' ', 'T')),
);

/** Asserts the same verdict as the reference, and the same issues when refused; counts each verdict. */
function expectSameAsReference(verdicts: { taken: number; refused: number }) {
  return (value: string): void => {
    const actual = Timestamp.safeParse(value);
    const expected = Reference.safeParse(value);
    expect(actual.success).toBe(expected.success);
    if (expected.success) verdicts.taken++;
    else {
      expect(actual.error?.issues).toStrictEqual(expected.error.issues);
      verdicts.refused++;
    }
  };
}

describe('Timestamp', () => {
  it('takes real dates and times and refuses the rest as the Date round trip did', () => {
    const numRuns = 5000;
    const verdicts = { taken: 0, refused: 0 };
    fc.assert(fc.property(formatted, expectSameAsReference(verdicts)), { numRuns });
    expect(verdicts.taken).toBeGreaterThan(numRuns / 10);
    expect(verdicts.refused).toBeGreaterThan(numRuns / 10);
  });

  it('reports the same issues for a malformed value as before', () => {
    const numRuns = 2000;
    const verdicts = { taken: 0, refused: 0 };
    fc.assert(fc.property(malformed, expectSameAsReference(verdicts)), { numRuns });
    // Some are taken after all: a value with no zero to drop is still formatted.
    expect(verdicts.refused).toBeGreaterThan(numRuns / 2);
  });

  it.each([
    ['2024-02-29 23:59:59', true],
    ['2023-02-29 00:00:00', false],
    ['2000-02-29 00:00:00', true],
    ['2100-02-29 00:00:00', false],
    ['2026-04-31 00:00:00', false],
    ['2026-12-31 24:00:00', false],
    ['0099-01-01 00:00:00', false],
  ])('%s is a real date and time: %s', (value, real) => {
    expect(Timestamp.safeParse(value).success).toBe(real);
  });
});
