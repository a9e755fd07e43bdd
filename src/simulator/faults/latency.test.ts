import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleLatency } from './latency.js';

/** mulberry32: a small seeded generator, so the statistical checks are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stats = (values: number[]) => {
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / values.length;
  return { mean, stdDev: Math.sqrt(variance) };
};

describe('sampleLatency', () => {
  it('when no latency is configured, then it is zero and draws nothing', () => {
    const random = () => {
      throw new Error('no draw expected');
    };

    expect(sampleLatency(undefined, random)).toBe(0);
  });

  it('when latency is fixed, then every sample is that value', () => {
    expect(sampleLatency({ fixedMs: 25 }, Math.random)).toBe(25);
  });

  it('for any bounds and draw, a uniform sample lies within the bounds', () => {
    fc.assert(
      fc.property(
        fc.nat(1000),
        fc.nat(1000),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (a, b, draw) => {
          const [minMs, maxMs] = a <= b ? [a, b] : [b, a];
          const ms = sampleLatency({ minMs, maxMs }, () => draw);
          expect(ms).toBeGreaterThanOrEqual(minMs);
          expect(ms).toBeLessThanOrEqual(maxMs);
        },
      ),
    );
  });

  it('when latency is normal, then samples have about its mean and standard deviation', () => {
    const random = seeded(42);
    const samples = Array.from({ length: 20_000 }, () =>
      sampleLatency({ meanMs: 100, stdDevMs: 15 }, random),
    );

    const { mean, stdDev } = stats(samples);

    expect(mean).toBeCloseTo(100, 0);
    expect(Math.abs(stdDev - 15)).toBeLessThan(0.5);
  });

  it('when a normal draw falls below zero, then the sample is clipped to zero', () => {
    const random = seeded(7);
    const samples = Array.from({ length: 2_000 }, () =>
      sampleLatency({ meanMs: 1, stdDevMs: 50 }, random),
    );

    expect(Math.min(...samples)).toBe(0);
    expect(samples.filter((ms) => ms === 0).length).toBeGreaterThan(800);
  });

  it('when the first draw is exactly 0, then the normal sample is still finite', () => {
    expect(Number.isFinite(sampleLatency({ meanMs: 10, stdDevMs: 5 }, () => 0))).toBe(true);
  });
});
