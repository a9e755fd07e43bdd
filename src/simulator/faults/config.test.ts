import { describe, expect, it } from 'vitest';
import { FaultConfig, FaultKind, HUGE_MAX_BYTES } from './config.js';

describe('FaultConfig', () => {
  it('when every part is given, then it is accepted as written', () => {
    const config = {
      latency: { meanMs: 40, stdDevMs: 10 },
      operations: {
        '*': { errorRate: 0.1 },
        createDraft: { errorRate: 0.2, error: 'code21990001', hangRate: 0.05, resetRate: 0.05 },
      },
      requestsPerSecond: 50,
      script: [
        { operation: 'createDraft', kind: 'http503', times: 3 },
        { kind: 'latency', ms: 500, times: 1 },
      ],
    };

    expect(FaultConfig.parse(config)).toEqual(config);
  });

  it.each([{ fixedMs: 0 }, { minMs: 5, maxMs: 5 }, { meanMs: 10, stdDevMs: 0 }])(
    'when latency is %j, then it is accepted',
    (latency) => {
      expect(FaultConfig.safeParse({ latency }).success).toBe(true);
    },
  );

  it('when rates add up to 1 only after float rounding, then they are accepted', () => {
    const rates = { errorRate: 0.7, hangRate: 0.2, resetRate: 0.1 };

    expect(FaultConfig.safeParse({ operations: { '*': rates } }).success).toBe(true);
  });

  it.each([
    { kind: 'late', times: 1, ms: 4000 },
    { operation: 'addSignatory', kind: 'late', times: 2, ms: 0 },
    { kind: 'resetAfterApply', times: 1 },
    { kind: 'resetAfterApply', times: 1, ms: 100 },
    { kind: 'garbage', times: 3 },
    { kind: 'maintenance', times: 1 },
    { kind: 'maintenance', times: 1, status: 503, ms: 50 },
    { kind: 'maintenance', times: 1, status: 404 },
    { kind: 'drip', times: 1, ms: 1 },
    { kind: 'huge', times: 1 },
    { kind: 'huge', times: 1, bytes: HUGE_MAX_BYTES },
  ])('when a scripted fault is %j, then it is accepted as written', (fault) => {
    expect(FaultConfig.parse({ script: [fault] })).toEqual({ script: [fault] });
  });

  it('when each fault kind is scripted with its required fields, then every kind is accepted', () => {
    const needsMs = new Set(['latency', 'late', 'drip']);
    const script = FaultKind.options.map((kind) => ({
      kind,
      times: 1,
      ...(needsMs.has(kind) ? { ms: 10 } : {}),
    }));

    expect(FaultConfig.safeParse({ script }).success).toBe(true);
  });

  it.each([
    ['an unknown top-level key', { latncy: { fixedMs: 1 } }],
    ['a latency mixing two forms', { latency: { fixedMs: 1, minMs: 0 } }],
    ['a uniform latency whose min exceeds its max', { latency: { minMs: 9, maxMs: 1 } }],
    ['a negative latency', { latency: { fixedMs: -1 } }],
    ['an unknown operation', { operations: { createContract: { errorRate: 0.1 } } }],
    ['a rate above 1', { operations: { '*': { errorRate: 1.5 } } }],
    ['rates adding up to more than 1', { operations: { '*': { errorRate: 0.6, hangRate: 0.6 } } }],
    ['an unknown error', { operations: { '*': { errorRate: 1, error: 'http500' } } }],
    ['a zero request rate', { requestsPerSecond: 0 }],
    ['a scripted latency without ms', { script: [{ kind: 'latency', times: 1 }] }],
    ['a scripted fault used zero times', { script: [{ kind: 'reset', times: 0 }] }],
    ['a scripted fault of an unknown kind', { script: [{ kind: 'crash', times: 1 }] }],
    ['a late answer without ms', { script: [{ kind: 'late', times: 1 }] }],
    ['a late answer held too long', { script: [{ kind: 'late', times: 1, ms: 600_001 }] }],
    ['a drip without ms', { script: [{ kind: 'drip', times: 1 }] }],
    ['a drip of 0 ms a byte', { script: [{ kind: 'drip', times: 1, ms: 0 }] }],
    [
      'a maintenance status below 200',
      { script: [{ kind: 'maintenance', times: 1, status: 101 }] },
    ],
    [
      'a maintenance status above 599',
      { script: [{ kind: 'maintenance', times: 1, status: 600 }] },
    ],
    [
      'a fractional maintenance status',
      { script: [{ kind: 'maintenance', times: 1, status: 200.5 }] },
    ],
    ['a status on another kind', { script: [{ kind: 'http503', times: 1, status: 502 }] }],
    [
      'a huge answer over 1 GiB',
      { script: [{ kind: 'huge', times: 1, bytes: HUGE_MAX_BYTES + 1 }] },
    ],
    ['a huge answer of 0 bytes', { script: [{ kind: 'huge', times: 1, bytes: 0 }] }],
    ['a fractional size', { script: [{ kind: 'huge', times: 1, bytes: 1.5 }] }],
    ['bytes on another kind', { script: [{ kind: 'garbage', times: 1, bytes: 10 }] }],
    ['a garbage answer used zero times', { script: [{ kind: 'garbage', times: 0 }] }],
    [
      'a reset after apply for an unknown operation',
      { script: [{ operation: 'sign', kind: 'resetAfterApply', times: 1 }] },
    ],
  ])('when the config has %s, then it is refused', (_name, config) => {
    expect(FaultConfig.safeParse(config).success).toBe(false);
  });
});
