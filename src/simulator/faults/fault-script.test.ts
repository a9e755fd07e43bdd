import { describe, expect, it } from 'vitest';
import { FaultScript } from './fault-script.js';

describe('FaultScript', () => {
  it('when the next 3 createDraft calls are scripted, then exactly those 3 take the fault', () => {
    const script = new FaultScript([{ operation: 'createDraft', kind: 'http503', times: 3 }]);

    const kinds = Array.from({ length: 4 }, () => script.take('createDraft')?.kind);

    expect(kinds).toEqual(['http503', 'http503', 'http503', undefined]);
  });

  it('when an entry is for another operation, then it does not hold back a later matching entry', () => {
    const script = new FaultScript([
      { operation: 'initiateContract', kind: 'reset', times: 1 },
      { kind: 'code21990001', times: 1 },
    ]);

    expect(script.take('createDraft')?.kind).toBe('code21990001');
    expect(script.take('createDraft')).toBeUndefined();
    expect(script.take('initiateContract')?.kind).toBe('reset');
  });

  it('when several entries match, then they are used in order', () => {
    const script = new FaultScript([
      { kind: 'latency', ms: 50, times: 1 },
      { operation: 'addSignatory', kind: 'hang', times: 2 },
    ]);

    const kinds = Array.from({ length: 3 }, () => script.take('addSignatory')?.kind);

    expect(kinds).toEqual(['latency', 'hang', 'hang']);
  });

  it('when calls use entries up, then remaining shows what is left without sharing state', () => {
    const entries = [{ operation: 'createDraft' as const, kind: 'http503' as const, times: 3 }];
    const script = new FaultScript(entries);
    script.take('createDraft');

    const remaining = script.remaining;
    remaining[0] = { kind: 'reset', times: 9 };

    expect(script.remaining).toEqual([{ operation: 'createDraft', kind: 'http503', times: 2 }]);
    expect(entries[0]?.times).toBe(3);
  });

  it('when answer faults are scripted per operation, then each call takes its own with its fields, and what is left keeps them', () => {
    const script = new FaultScript([
      { operation: 'addSignatory', kind: 'late', times: 1, ms: 4000 },
      { operation: 'remindSignatories', kind: 'maintenance', times: 2, status: 503 },
      { kind: 'huge', times: 1, bytes: 1_000_000 },
    ]);

    const taken = [
      script.take('remindSignatories'),
      script.take('addSignatory'),
      script.take('createDraft'),
      script.take('createDraft'),
    ];

    expect(taken).toEqual([
      { operation: 'remindSignatories', kind: 'maintenance', times: 2, status: 503 },
      { operation: 'addSignatory', kind: 'late', times: 1, ms: 4000 },
      { kind: 'huge', times: 1, bytes: 1_000_000 },
      undefined,
    ]);
    expect(script.remaining).toEqual([
      { operation: 'remindSignatories', kind: 'maintenance', times: 1, status: 503 },
    ]);
  });
});
