import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_ENTRY,
  hasOpenCommands,
  isDone,
  priorUse,
  progressOf,
  withCommandEnded,
  withoutStep,
  withStep,
} from './entry.js';

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
      resent: false,
    });
    expect(progressOf(done, 'other')).toEqual({ contractId: 'K1', steps: {}, resent: false });
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

  it('when a command ends without a final verdict, then only its record is remembered and its steps are kept for the same commandId sent again', () => {
    const draft = withStep(EMPTY_ENTRY, 'c1', 'draft', { state: 'done', result: {} }, 10);
    const inDoubt = withStep(draft, 'c1', 'document:0', { state: 'started' }, 10);
    const ended = withCommandEnded(inDoubt, 'c1', 10, undefined, {
      final: false,
      token: 'ended@t/7',
    });
    expect(isDone(ended, 'c1')).toBe(false);
    expect(isDone(ended, 'ended@t/7')).toBe(true);
    expect(progressOf(ended, 'c1')).toEqual({
      contractId: undefined,
      steps: { draft: { state: 'done', result: {} }, 'document:0': { state: 'started' } },
      resent: true,
    });
    // Nothing is under way any more: the entry may expire.
    expect(hasOpenCommands(ended)).toBe(false);
    expect(hasOpenCommands(inDoubt)).toBe(true);
  });

  it('when the same commandId sent again records a step, then it is under way again', () => {
    const ended = withCommandEnded(
      withStep(EMPTY_ENTRY, 'c1', 'approve', { state: 'started' }, 10),
      'c1',
      10,
      undefined,
      { final: false, token: 'ended@t/7' },
    );
    const again = withStep(ended, 'c1', 'approve', { state: 'done' }, 10);
    expect(progressOf(again, 'c1').resent).toBe(false);
    expect(hasOpenCommands(again)).toBe(true);
  });

  it('when a step is forgotten, then the command has no trace of it, and none at all once it was its only step', () => {
    const two = withStep(
      withStep(EMPTY_ENTRY, 'c1', 'draft', { state: 'done' }, 10),
      'c1',
      'document:0',
      { state: 'started' },
      10,
    );
    expect(progressOf(withoutStep(two, 'c1', 'document:0'), 'c1').steps).toEqual({
      draft: { state: 'done' },
    });
    const one = withStep(EMPTY_ENTRY, 'c1', 'remind', { state: 'started' }, 10);
    expect(withoutStep(one, 'c1', 'remind').open).toEqual([]);
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

  it('when a command ends for good with its fingerprint, then its commandId is spent with that fingerprint', () => {
    const ended = withCommandEnded(EMPTY_ENTRY, 'X', 5, undefined, {
      final: true,
      fingerprint: 'f1',
    });
    expect(ended.done).toEqual(['X f1']);
    expect(isDone(ended, 'X')).toBe(true);
    expect(priorUse(ended, 'X')).toEqual({ state: 'ended-final', fingerprint: 'f1' });
    expect(priorUse(ended, 'Y')).toBeUndefined();
  });

  it('when an entry written before fingerprints lists a bare commandId, then its use has no fingerprint', () => {
    const legacy = { done: ['X'], open: [] };
    expect(priorUse(legacy, 'X')).toEqual({ state: 'ended-final', fingerprint: undefined });
  });

  it('when a command is under way or ended without a final verdict, then its fingerprint stays with it, even with no steps kept', () => {
    const running = withStep(EMPTY_ENTRY, 'X', 'draft', { state: 'started' }, 5, 'f1');
    expect(priorUse(running, 'X')).toEqual({ state: 'under-way', fingerprint: 'f1' });
    const forgotten = withoutStep(running, 'X', 'draft');
    expect(priorUse(forgotten, 'X')).toEqual({ state: 'under-way', fingerprint: 'f1' });
    const token = 'ended@commands.remind/0/7';
    const parked = withCommandEnded(forgotten, 'X', 5, undefined, {
      final: false,
      token,
      fingerprint: 'f1',
    });
    expect(priorUse(parked, 'X')).toEqual({ state: 'ended-not-final', fingerprint: 'f1' });
    expect(isDone(parked, token)).toBe(true);
  });

  it('writes an open command as commandId, steps, ended and fingerprint, in that order, and no key for one it lacks', () => {
    const running = withStep(EMPTY_ENTRY, 'X', 'draft', { state: 'started' }, 5);
    expect(JSON.stringify(running.open)).toBe(
      '[{"commandId":"X","steps":{"draft":{"state":"started"}}}]',
    );
    const parked = withCommandEnded(
      withStep(running, 'X', 'draft', { state: 'started' }, 5, 'f1'),
      'X',
      5,
      undefined,
      {
        final: false,
        token: 'ended@t/7',
        fingerprint: 'f1',
      },
    );
    expect(JSON.stringify(parked.open)).toBe(
      '[{"commandId":"X","steps":{"draft":{"state":"started"}},"ended":true,"fingerprint":"f1"}]',
    );
  });
});
