import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_ENTRY, isDone, progressOf, withCommandEnded, withStep } from './entry.js';

describe('ledger entries', () => {
  it('when a step is recorded, then the command progress shows it and a contractId in its result is kept', () => {
    const started = withStep(EMPTY_ENTRY, 'c1', 'draft', { state: 'started' }, 10);
    const done = withStep(
      started,
      'c1',
      'draft',
      { state: 'done', result: { contractId: 'K1' } },
      10,
    );
    expect(progressOf(done, 'c1')).toEqual({
      contractId: 'K1',
      steps: { draft: { state: 'done', result: { contractId: 'K1' } } },
    });
    expect(progressOf(done, 'other')).toEqual({ contractId: 'K1', steps: {} });
  });

  it('when a command ends, then it is done, its steps are forgotten and the contractId stays', () => {
    const recorded = withStep(
      EMPTY_ENTRY,
      'c1',
      'draft',
      { state: 'done', result: { contractId: 'K1' } },
      10,
    );
    const ended = withCommandEnded(recorded, 'c1', 10);
    expect(isDone(ended, 'c1')).toBe(true);
    expect(ended).toEqual({ contractId: 'K1', done: ['c1'], open: [] });
  });

  it('when a command ends with a contractId, then later commands see it', () => {
    expect(withCommandEnded(EMPTY_ENTRY, 'c1', 10, 'K9').contractId).toBe('K9');
  });

  it('keeps the newest `keep` ended commands, forgetting the oldest first', () => {
    let entry = EMPTY_ENTRY;
    for (const id of ['c1', 'c2', 'c3', 'c4']) entry = withCommandEnded(entry, id, 3);
    expect(entry.done).toEqual(['c2', 'c3', 'c4']);
    expect(isDone(entry, 'c1')).toBe(false);
  });

  it('keeps the most recently recorded open commands, even with commandIds that look like numbers', () => {
    let entry = EMPTY_ENTRY;
    for (const id of ['30', '10', '20', '10'])
      entry = withStep(entry, id, 's', { state: 'started' }, 2);
    expect(entry.open.map((c) => c.commandId)).toEqual(['20', '10']);
  });

  it('never grows past `keep` in either list and survives a JSON round trip', () => {
    const arbChange = fc.oneof(
      fc.record({ end: fc.constantFrom('a', 'b', 'c', 'd', '1', '2') }),
      fc.record({
        step: fc.constantFrom('a', 'b', 'c', 'd', '1', '2'),
        name: fc.constantFrom('x', 'y'),
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(arbChange), (keep, changes) => {
        let entry = EMPTY_ENTRY;
        for (const change of changes) {
          entry =
            'end' in change
              ? withCommandEnded(entry, change.end, keep)
              : withStep(entry, change.step, change.name, { state: 'done' }, keep);
          expect(entry.done.length).toBeLessThanOrEqual(keep);
          expect(entry.open.length).toBeLessThanOrEqual(keep);
          expect(new Set(entry.done).size).toBe(entry.done.length);
        }
        expect(JSON.parse(JSON.stringify(entry))).toEqual(entry);
      }),
    );
  });
});
