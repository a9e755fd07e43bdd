import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADAPTIVE, AdaptiveRate } from './adaptive-rate.js';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from './rate-control.js';

describe('AdaptiveRate', () => {
  it('when throttled, then the factor halves, once per calm period', () => {
    const rate = new AdaptiveRate();
    expect(rate.throttled(0)).toBe(true);
    expect(rate.factor).toBe(0.5);
    expect(rate.throttled(ADAPTIVE.calmMs - 1)).toBe(false);
    expect(rate.factor).toBe(0.5);
    expect(rate.throttled(ADAPTIVE.calmMs)).toBe(true);
    expect(rate.factor).toBe(0.25);
  });

  it('when the platform asks to retry later than the calm period, then no decrease comes before that', () => {
    const rate = new AdaptiveRate();
    rate.throttled(0, 5_000);
    expect(rate.throttled(4_999)).toBe(false);
    expect(rate.throttled(5_000)).toBe(true);
  });

  it('when seconds pass without throttling, then the factor climbs back fast to near where it was refused, slowly through the last tenth, then fast again, up to 1', () => {
    const rate = new AdaptiveRate();
    rate.throttled(0);
    rate.throttled(1_000);
    rate.throttled(2_000);
    // Refused at 0.25, now 0.125.
    const factors: number[] = [];
    while (rate.tick()) factors.push(Math.round(rate.factor * 1000) / 1000);
    expect(factors.slice(0, 5)).toEqual([0.225, 0.23, 0.235, 0.24, 0.245]);
    expect(factors.slice(5, 8)).toEqual([0.25, 0.35, 0.45]);
    expect(factors.at(-1)).toBe(1);
    expect(rate.tick()).toBe(false);
  });

  it('whatever the answers, the factor stays between the floor and 1', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('tick' as const) }),
      fc.record({
        kind: fc.constant('throttled' as const),
        gap: fc.integer({ min: 0, max: 3_000 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const rate = new AdaptiveRate();
        let now = 0;
        for (const s of steps) {
          if (s.kind === 'tick') rate.tick();
          else {
            now += s.gap;
            rate.throttled(now);
          }
          expect(rate.factor).toBeGreaterThanOrEqual(ADAPTIVE.floor);
          expect(rate.factor).toBeLessThanOrEqual(1);
        }
      }),
    );
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it.each([
    [undefined, 0],
    ['2', 2_000],
    [' 0 ', 0],
    ['Thu, 01 Jan 2026 00:00:03 GMT', 3_000],
    ['Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['soon', 0],
    ['86400', MAX_RETRY_AFTER_MS],
  ])('reads %j as %d ms', (value, expected) => {
    expect(retryAfterMs(value, now)).toBe(expected);
  });
});
