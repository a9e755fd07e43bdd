import { describe, expect, it } from 'vitest';
import type { FaultConfig } from './config.js';
import { drawFault } from './random-fault.js';

const operations: FaultConfig['operations'] = {
  '*': { errorRate: 0.5 },
  createDraft: { resetRate: 0.1, hangRate: 0.2, errorRate: 0.3, error: 'code21990001' },
};

describe('drawFault', () => {
  // The bounds are sums of floats (0.1 + 0.2 > 0.3), so the draws keep clear of them.
  it.each([
    [0, 'reset'],
    [0.099, 'reset'],
    [0.1, 'hang'],
    [0.299, 'hang'],
    [0.301, 'code21990001'],
    [0.599, 'code21990001'],
    [0.601, undefined],
    [0.999, undefined],
  ] as const)(
    'when the draw is %d, then an operation with its own rates gets %s',
    (draw, fault) => {
      expect(drawFault(operations, 'createDraft', () => draw)).toBe(fault);
    },
  );

  it('when an operation has no rates of its own, then the whole "*" entry applies, with 503 by default', () => {
    expect(drawFault(operations, 'addSignatory', () => 0.49)).toBe('http503');
    expect(drawFault(operations, 'addSignatory', () => 0.5)).toBeUndefined();
  });

  it('when no rates apply, then nothing is drawn', () => {
    const random = () => {
      throw new Error('no draw expected');
    };

    expect(drawFault(undefined, 'createDraft', random)).toBeUndefined();
    expect(drawFault({ createDraft: { errorRate: 1 } }, 'approveContract', random)).toBeUndefined();
  });
});
