import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, commandFingerprint, sortedKeys } from './fingerprint.js';

/** The same value with its object keys in another order, at every level. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, member]) => [key, reordered(member)]),
  );
}

describe('commandFingerprint', () => {
  it('is the same for one content whatever the order of its keys, and bounded in size', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (type, content) => {
        const fingerprint = commandFingerprint(type, content);
        expect(commandFingerprint(type, reordered(content))).toBe(fingerprint);
        expect(fingerprint).toMatch(/^[A-Za-z0-9_-]{12}$/);
      }),
    );
  });

  it('is the one the ledger already holds for a command: a fingerprint never changes between versions', () => {
    const approval = {
      commandId: 'order-4711-approve',
      bizId: 'order-4711',
      payload: { pass: true, comment: 'ü ✓' },
    };
    expect(commandFingerprint('approve', approval)).toBe('NUI2WyjW0YOX');
  });

  it('differs for two different contents, or one content under two command types', () => {
    const numRuns = 100;
    let differing = 0;
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b));
        differing++;
        expect(commandFingerprint('approve', a)).not.toBe(commandFingerprint('approve', b));
      }),
      { numRuns },
    );
    expect(differing).toBeGreaterThan(numRuns / 10);
    const approval = { commandId: 'X', bizId: 'b', payload: { pass: true } };
    expect(commandFingerprint('approve', approval)).not.toBe(
      commandFingerprint('approve', { ...approval, payload: { pass: false } }),
    );
    expect(commandFingerprint('approve', approval)).not.toBe(
      commandFingerprint('remind', approval),
    );
  });

  it('leaves out undefined members, as JSON does', () => {
    expect(canonicalJson({ b: 1, a: undefined, c: [1, { y: 2, x: null }] })).toBe(
      '{"b":1,"c":[1,{"x":null,"y":2}]}',
    );
  });
});

describe('sortedKeys', () => {
  it('orders any keys as the default sort does, few or many, so canonicalJson writes what it always wrote', () => {
    const keys = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.nat().map(String));
    fc.assert(
      fc.property(fc.dictionary(keys, fc.constant(0), { maxKeys: 40 }), (object) => {
        expect(sortedKeys(object)).toEqual(Object.keys(object).sort());
      }),
    );
    // As the other heavy unit properties: a hundred dictionaries of up to 40 binary keys took
    // over 5 s on a loaded 2-core machine.
  }, 30_000);
});
