import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CellHistogram } from './metric-cells.js';

const BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5];
const config = {
  name: 'x_duration_seconds',
  help: 'How long x took',
  labelNames: ['type', 'outcome'] as const,
  buckets: BUCKETS,
};

type Step =
  | { readonly kind: 'observe'; readonly type: string; readonly outcome: string; value: number }
  | { readonly kind: 'reset' };

/** The same steps on a CellHistogram and on prom-client's own Histogram, each in its registry. */
function both() {
  const ours = new Registry();
  const theirs = new Registry();
  const cells = new CellHistogram({
    ...config,
    labelNames: [...config.labelNames],
    registers: [ours],
  });
  const reference = new Histogram({ ...config, registers: [theirs] });
  const apply = (step: Step) => {
    if (step.kind === 'reset') {
      ours.resetMetrics();
      theirs.resetMetrics();
      return;
    }
    const labels = { type: step.type, outcome: step.outcome };
    cells.labels(labels).observe(step.value);
    reference.labels(labels).observe(step.value);
  };
  return { ours, theirs, cells, apply };
}

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record({
      kind: fc.constant('observe' as const),
      type: fc.constantFrom('remind', 'approve', 'a "quoted"\\name'),
      outcome: fc.constantFrom('completed', 'failed'),
      // Bounds themselves, 0, values above every bound, and any others.
      value: fc.oneof(
        fc.constantFrom(0, ...BUCKETS, 2.5000001, 300),
        fc.double({ min: -10, max: 1_000, noNaN: true }),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
);

describe('CellHistogram', () => {
  it('when fed any observations and resets, then its exposition is that of a prom-client Histogram fed the same', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const { ours, theirs, apply } = both();
        for (const each of steps) apply(each);
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
    );
  });

  it('when nothing was observed, or a label set only has a cell, then no series shows, as with prom-client', async () => {
    const { ours, theirs, cells } = both();
    cells.labels({ type: 'remind', outcome: 'completed' });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toBe(
      '# HELP x_duration_seconds How long x took\n# TYPE x_duration_seconds histogram\n',
    );
  });

  it('when a label set is asked for again, then it is the same cell', () => {
    const { cells } = both();
    const labels = { type: 'remind', outcome: 'completed' };
    expect(cells.labels({ ...labels })).toBe(cells.labels(labels));
  });

  it('when read as JSON, then it is a histogram with the same samples as prom-client’s', async () => {
    const { ours, theirs, apply } = both();
    apply({ kind: 'observe', type: 'remind', outcome: 'completed', value: 0.3 });
    const strip = (metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
      metrics.map(({ name, help, type, aggregator, values }) => ({
        ...{ name, help, type, aggregator },
        values: values.map(({ labels, value }) => ({ labels, value })),
      }));
    expect(strip(await ours.getMetricsAsJSON())).toEqual(strip(await theirs.getMetricsAsJSON()));
  });

  it('when given a value that is not a finite number, or a label it does not have, then it throws as prom-client does', () => {
    const { cells } = both();
    const cell = cells.labels({ type: 'remind', outcome: 'completed' });
    expect(() => cell.observe(Number.NaN)).toThrow('Value is not a valid number: NaN');
    expect(() => cell.observe(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() =>
      cells.labels({ type: 'remind', outcome: 'completed', other: 'x' } as never),
    ).toThrow('Added label "other" is not included in initial labelset');
  });
});
