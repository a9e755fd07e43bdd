import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WeightedTurns } from './weighted-turns.js';

/** Takes `n` turns among `candidates` and counts them per class. */
function take(turns: WeightedTurns, candidates: readonly string[], n: number) {
  const counts = new Map<string, number>(candidates.map((name) => [name, 0]));
  for (let i = 0; i < n; i++) {
    const name = turns.next(candidates) as string;
    turns.took(name);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

const weightsArb = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 4 })
  .chain((names) =>
    fc.tuple(
      fc.constant(names),
      fc.array(fc.integer({ min: 1, max: 20 }), {
        minLength: names.length,
        maxLength: names.length,
      }),
    ),
  )
  .map(([names, weights]) => new Map(names.map((name, i) => [name, weights[i] as number])));

describe('WeightedTurns', () => {
  it('when classes all have work, then each takes turns in proportion to its weight, within one turn per class', () => {
    fc.assert(
      fc.property(weightsArb, fc.integer({ min: 1, max: 500 }), (weights, n) => {
        const turns = new WeightedTurns(weights);
        const names = [...weights.keys()];
        const counts = take(turns, names, n);
        const total = [...weights.values()].reduce((sum, w) => sum + w, 0);
        for (const name of names) {
          const fair = (n * (weights.get(name) as number)) / total;
          expect(Math.abs((counts.get(name) as number) - fair)).toBeLessThanOrEqual(names.length);
        }
      }),
    );
  });

  it('when a class with work has the lowest weight, then it still gets a turn within one round of weights', () => {
    const turns = new WeightedTurns(
      new Map([
        ['interactive', 1000],
        ['bulk', 1],
      ]),
    );
    const counts = take(turns, ['interactive', 'bulk'], 1002);
    expect(counts.get('bulk')).toBeGreaterThanOrEqual(1);
  });

  it('when a class comes back after being idle, then it does not get the turns it missed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 300 }), (w, idle) => {
        const turns = new WeightedTurns(
          new Map([
            ['a', w],
            ['b', 1],
          ]),
        );
        take(turns, ['a'], idle);
        // Back, b goes first (it has not taken a turn at the current pass), then the shares hold.
        expect(turns.next(['a', 'b'])).toBe('b');
        const counts = take(turns, ['a', 'b'], (w + 1) * 10);
        expect(Math.abs((counts.get('b') as number) - 10)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('when classes are level, then the heavier goes first; unlisted classes weigh 1', () => {
    const turns = new WeightedTurns(
      new Map([
        ['light', 1],
        ['heavy', 3],
      ]),
    );
    expect(turns.next(['light', 'heavy'])).toBe('heavy');
    expect(turns.weight('unlisted')).toBe(1);
    expect(turns.next([])).toBeUndefined();
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a weight of %s', (weight) => {
    expect(() => new WeightedTurns(new Map([['a', weight]]))).toThrow(RangeError);
  });
});
