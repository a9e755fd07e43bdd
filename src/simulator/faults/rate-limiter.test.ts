import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter.js';

const admitted = (limiter: RateLimiter, times: number[]) =>
  times.filter((now) => limiter.admit(now).admitted).length;

describe('RateLimiter', () => {
  it('when R requests arrive at once, then a burst of R is admitted and the next is refused', () => {
    const limiter = new RateLimiter(10);

    expect(admitted(limiter, Array(10).fill(0))).toBe(10);
    expect(limiter.admit(0)).toEqual({ admitted: false, retryAfterMs: 100 });
  });

  it('when time passes, then tokens come back at the rate', () => {
    const limiter = new RateLimiter(10);
    admitted(limiter, Array(10).fill(0));

    expect(limiter.admit(99).admitted).toBe(false);
    expect(limiter.admit(100).admitted).toBe(true);
    expect(admitted(limiter, Array(5).fill(1000))).toBe(5);
  });

  it('when the rate is below 2, then the bucket still holds 2 tokens', () => {
    const limiter = new RateLimiter(0.5);

    expect(admitted(limiter, [0, 0, 0])).toBe(2);
    expect(limiter.admit(1999).admitted).toBe(false);
    expect(limiter.admit(2000).admitted).toBe(true);
  });

  it('for any rate, a client pacing exactly at it is never refused, with jitter up to one interval', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 20_000, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 500 }),
        (rate, jitters) => {
          const interval = 1000 / rate;
          const limiter = new RateLimiter(rate);
          const arrivals = jitters.map((jitter, k) => (k + jitter) * interval);

          expect(admitted(limiter, arrivals)).toBe(arrivals.length);
        },
      ),
    );
  });

  it('for any arrivals, no more than the capacity plus the rate times the elapsed time get in', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.nat(10_000), { minLength: 1, maxLength: 2000 }),
        (rate, offsets) => {
          const times = offsets.sort((a, b) => a - b);
          const limiter = new RateLimiter(rate);
          const span = (times.at(-1) ?? 0) - (times[0] ?? 0);

          expect(admitted(limiter, times)).toBeLessThanOrEqual(
            Math.max(rate, 2) + (rate * span) / 1000 + 1e-6,
          );
        },
      ),
    );
  });
});
