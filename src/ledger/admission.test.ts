import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AdmissionFacts,
  admission,
  endedToken,
  rejectedBefore,
  rejectionToken,
} from './admission.js';
import { EMPTY_ENTRY, type LedgerEntry, withCommandEnded, withoutStep, withStep } from './entry.js';

const KEEP = 100;
const record = { topic: 'cmd.remind', offset: '7', timestamp: '1700000000000' };
const facts = (overrides: Partial<AdmissionFacts> = {}): AdmissionFacts => ({
  commandId: 'c-1',
  fingerprint: 'f-1',
  record,
  producedAt: 5_000,
  vouchedSince: 1_000,
  ...overrides,
});

describe('admission of a command record', () => {
  it('when the ledger knows nothing of it and it is recent, then it runs as new', () => {
    expect(admission(EMPTY_ENTRY, facts())).toEqual({
      kind: 'run',
      as: 'new',
      progress: { contractId: undefined, steps: {}, resent: false },
      inDoubt: [],
    });
  });

  it('when it is older than the ledger vouches for and its commandId unknown, then it has expired', () => {
    expect(admission(EMPTY_ENTRY, facts({ producedAt: 999 }))).toEqual({
      kind: 'expired',
      producedAt: 999,
      vouchedSince: 1_000,
    });
  });

  it('when it was vouched for already (held and run again), or says no time, then it never expires', () => {
    expect(admission(EMPTY_ENTRY, facts({ producedAt: 1, vouchedSince: undefined })).kind).toBe(
      'run',
    );
    expect(admission(EMPTY_ENTRY, facts({ producedAt: undefined })).kind).toBe('run');
  });

  it('when its steps were recorded, then it resumes, naming the steps in doubt', () => {
    let entry = withStep(
      EMPTY_ENTRY,
      'c-1',
      'draft',
      { state: 'done', result: { contractId: 'K' } },
      KEEP,
      'f-1',
    );
    entry = withStep(entry, 'c-1', 'document:0', { state: 'started' }, KEEP, 'f-1');
    const decided = admission(entry, facts({ producedAt: 1 }));
    expect(decided).toMatchObject({ kind: 'run', as: 'resumed', inDoubt: ['document:0'] });
  });

  it('when this very record ended before without a final verdict, then a replay is a duplicate, and a new record of the same command runs again as resent', () => {
    let entry = withStep(EMPTY_ENTRY, 'c-1', 'remind', { state: 'started' }, KEEP, 'f-1');
    entry = withCommandEnded(entry, 'c-1', KEEP, undefined, {
      final: false,
      token: endedToken(record),
      fingerprint: 'f-1',
    });
    expect(admission(entry, facts())).toEqual({ kind: 'duplicate' });
    const again = admission(entry, facts({ record: { ...record, offset: '9' } }));
    expect(again).toMatchObject({ kind: 'run', as: 'resent', inDoubt: ['remind'] });
  });

  it('when its commandId was spent with the same content, then it is a duplicate; with other content, reused', () => {
    const entry = withCommandEnded(EMPTY_ENTRY, 'c-1', KEEP, undefined, {
      final: true,
      fingerprint: 'f-1',
    });
    expect(admission(entry, facts())).toEqual({ kind: 'duplicate' });
    expect(admission(entry, facts({ fingerprint: 'f-2' }))).toEqual({
      kind: 'reused',
      first: { state: 'ended-final', fingerprint: 'f-1' },
    });
  });

  it('when this very record was rejected before, then it is not rejected again; another record is', () => {
    const entry = withCommandEnded(EMPTY_ENTRY, rejectionToken(record), KEEP);
    expect(rejectedBefore(entry, record)).toBe(true);
    expect(rejectedBefore(entry, { ...record, offset: '8' })).toBe(false);
  });

  it('when a topic of the same name was created again, then its record at an offset that ended or was rejected before, with another time, is neither a duplicate nor rejected before', () => {
    let entry = withCommandEnded(EMPTY_ENTRY, rejectionToken(record), KEEP);
    entry = withCommandEnded(entry, 'c-1', KEEP, undefined, {
      final: false,
      token: endedToken(record),
      fingerprint: 'f-1',
    });
    const renewed = { ...record, timestamp: '1700000999000' };
    expect(rejectedBefore(entry, renewed)).toBe(false);
    expect(admission(entry, facts({ record: renewed }))).toMatchObject({
      kind: 'run',
      as: 'resent',
    });
  });

  it('when a mark was written before marks named the time, then it still stands for the record at its position', () => {
    const entry: LedgerEntry = {
      done: [`ended@${record.topic}/${record.offset}`, `rejected@${record.topic}/${record.offset}`],
      open: [],
    };
    expect(admission(entry, facts())).toEqual({ kind: 'duplicate' });
    expect(rejectedBefore(entry, record)).toBe(true);
    expect(rejectedBefore(entry, { ...record, offset: '70' })).toBe(false);
  });

  describe('for any history of a bizId', () => {
    const ids = ['c-1', 'c-2', 'c-3'];
    const fingerprints = ['f-1', 'f-2'];
    const offsets = ['1', '2', '3'];
    // Two topics of one name (deleted and created again) hold records at the same offsets.
    const times = ['100', '200'];
    const operation = fc.oneof(
      fc.record({
        op: fc.constant('step' as const),
        id: fc.constantFrom(...ids),
        fingerprint: fc.constantFrom(...fingerprints),
        step: fc.constantFrom('a', 'b'),
        state: fc.constantFrom('started' as const, 'done' as const),
      }),
      fc.record({
        op: fc.constant('forget' as const),
        id: fc.constantFrom(...ids),
        step: fc.constantFrom('a', 'b'),
      }),
      fc.record({
        op: fc.constant('end' as const),
        id: fc.constantFrom(...ids),
        fingerprint: fc.constantFrom(...fingerprints),
        final: fc.boolean(),
        offset: fc.constantFrom(...offsets),
        timestamp: fc.constantFrom(...times),
      }),
    );
    type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;
    const apply = (entry: LedgerEntry, o: Operation): LedgerEntry => {
      switch (o.op) {
        case 'step':
          return withStep(entry, o.id, o.step, { state: o.state }, KEEP, o.fingerprint);
        case 'forget':
          return withoutStep(entry, o.id, o.step);
        case 'end':
          return withCommandEnded(
            entry,
            o.id,
            KEEP,
            undefined,
            o.final
              ? { final: true, fingerprint: o.fingerprint }
              : {
                  final: false,
                  token: endedToken({ topic: 't', offset: o.offset, timestamp: o.timestamp }),
                  fingerprint: o.fingerprint,
                },
          );
      }
    };
    const history = fc.array(operation, { maxLength: 12 });
    const asked = fc.record({
      commandId: fc.constantFrom(...ids),
      fingerprint: fc.constantFrom(...fingerprints),
      record: fc.record({
        topic: fc.constant('t'),
        offset: fc.constantFrom(...offsets, '4'),
        timestamp: fc.constantFrom(...times),
      }),
      producedAt: fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: undefined }),
      vouchedSince: fc.option(fc.constant(1_000), { nil: undefined }),
    });

    it('a record whose ending the entry names (by position and time) is a duplicate; a commandId spent finally is a duplicate or reused, never run; only an unknown commandId expires; a run names every step in doubt', () => {
      const seen = { replays: 0, renewed: 0, spent: 0, expired: 0, inDoubt: 0 };
      fc.assert(
        fc.property(history, asked, (operations, ask) => {
          let entry = EMPTY_ENTRY;
          const ended = new Set<string>();
          const spentWith = new Map<string, string>();
          const known = new Set<string>();
          for (const o of operations) {
            entry = apply(entry, o);
            if (o.op === 'end' && !o.final) ended.add(`${o.offset}/${o.timestamp}`);
            if (o.op === 'end' && o.final) spentWith.set(o.id, o.fingerprint);
            if (o.op !== 'forget') known.add(o.id);
          }
          const decided = admission(entry, ask);
          if (ended.has(`${ask.record.offset}/${ask.record.timestamp}`)) {
            seen.replays++;
            expect(decided).toEqual({ kind: 'duplicate' });
            return;
          }
          const spent = spentWith.get(ask.commandId);
          if ([...ended].some((e) => e.startsWith(`${ask.record.offset}/`)) && !spent) {
            // Only a record of the other topic of its name ended at this offset.
            seen.renewed++;
            expect(decided.kind).not.toBe('duplicate');
          }
          if (spent !== undefined) {
            seen.spent++;
            expect(['duplicate', 'reused']).toContain(decided.kind);
          }
          if (decided.kind === 'expired') {
            seen.expired++;
            expect(known.has(ask.commandId)).toBe(false);
            expect(ask.vouchedSince).toBeDefined();
          }
          if (decided.kind === 'run') {
            const open = entry.open.find((c) => c.commandId === ask.commandId);
            const started = Object.entries(open?.steps ?? {}).filter(
              ([, s]) => s.state === 'started',
            );
            if (started.length > 0) seen.inDoubt++;
            expect(decided.inDoubt).toEqual(started.map(([name]) => name));
          }
        }),
        { numRuns: 1000 },
      );
      expect(seen.replays).toBeGreaterThan(50);
      expect(seen.renewed).toBeGreaterThan(20);
      expect(seen.spent).toBeGreaterThan(50);
      expect(seen.expired).toBeGreaterThan(10);
      expect(seen.inDoubt).toBeGreaterThan(10);
    });
  });
});
