import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BackoffPolicy, backoffCap, fullJitterDelay } from './backoff.js';

const policy: BackoffPolicy = { initialDelayMs: 100, maxDelayMs: 5_000, multiplier: 2 };

const arbPolicy: fc.Arbitrary<BackoffPolicy> = fc.record({
  initialDelayMs: fc.double({ min: 0, max: 10_000, noNaN: true }),
  maxDelayMs: fc.double({ min: 0, max: 1e9, noNaN: true }),
  multiplier: fc.double({ min: 1, max: 100, noNaN: true }),
});
const arbAttempt = fc.oneof(fc.nat(64), fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER));
const arbRandom = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('fullJitterDelay', () => {
  it('scales the random draw by initialDelayMs * multiplier^attempt', () => {
    expect(fullJitterDelay(policy, 0, () => 0.5)).toBe(50);
    expect(fullJitterDelay(policy, 3, () => 0.5)).toBe(400);
  });

  it('when the exponential exceeds maxDelayMs, then the cap is maxDelayMs', () => {
    expect(fullJitterDelay(policy, 10, () => 0.5)).toBe(2_500);
  });

  it('when random returns 0, then the delay is 0', () => {
    expect(fullJitterDelay(policy, 5, () => 0)).toBe(0);
  });

  it('always lies within [0, cap] and is finite, even for huge attempts', () => {
    fc.assert(
      fc.property(arbPolicy, arbAttempt, arbRandom, (p, attempt, r) => {
        const delay = fullJitterDelay(p, attempt, () => r);
        expect(Number.isFinite(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(backoffCap(p, attempt));
      }),
    );
  });

  it('uses Math.random when no random source is given', () => {
    const delay = fullJitterDelay(policy, 2);
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(400);
  });
});

describe('backoffCap', () => {
  it('never decreases as attempts grow and never exceeds maxDelayMs', () => {
    fc.assert(
      fc.property(arbPolicy, arbAttempt, arbAttempt, (p, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(backoffCap(p, lo)).toBeLessThanOrEqual(backoffCap(p, hi));
        expect(backoffCap(p, hi)).toBeLessThanOrEqual(p.maxDelayMs);
        expect(Number.isFinite(backoffCap(p, hi))).toBe(true);
      }),
    );
  });

  it('when the initial delay is 0, then the cap stays 0 for huge attempts (no NaN)', () => {
    expect(backoffCap({ ...policy, initialDelayMs: 0 }, 10_000)).toBe(0);
  });

  it.each([
    { initialDelayMs: -1 },
    { maxDelayMs: Number.POSITIVE_INFINITY },
    { multiplier: 0.5 },
    { multiplier: Number.NaN },
  ])('rejects an invalid policy %o with a RangeError', (override) => {
    expect(() => backoffCap({ ...policy, ...override }, 0)).toThrow(RangeError);
  });
});
