import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { EMPTY_ENTRY, withCommandEnded, withStep } from './entry.js';
import { EntryStore, entryBytes, isOpen } from './entry-store.js';
import { Ledger, storedEntry } from './ledger.js';

const EPOCH_MS = Date.UTC(2024, 0, 1);
const T0 = Date.UTC(2026, 10, 1);
const ended = (commandId: string) => withCommandEnded(EMPTY_ENTRY, commandId, 10);
const open = (commandId: string) =>
  withStep(EMPTY_ENTRY, commandId, 'draft', { state: 'started' }, 10);
const stored = (entry: unknown, atMs: number) => storedEntry(atMs, JSON.stringify(entry));

describe('EntryStore', () => {
  it('tells an entry with a command under way from one with nothing open, an ended-not-final one included', () => {
    expect(isOpen(stored(ended('c1'), T0))).toBe(false);
    expect(isOpen(stored(open('c1'), T0))).toBe(true);
    const parked = withCommandEnded(open('c1'), 'c1', 10, undefined, { final: false, token: 't' });
    expect(isOpen(stored(parked, T0))).toBe(false);
    expect(isOpen(storedEntry(T0, '{not json'))).toBe(false);
  });

  it('keeps its estimate in step with what it holds, written again or deleted', () => {
    const store = new EntryStore(Number.POSITIVE_INFINITY, EPOCH_MS);
    const a = stored(ended('c1'), T0);
    const b = stored(ended('c2-longer'), T0);
    store.set('b1', a).set('b1', b).set('b2', a);
    expect(store.bytes).toBe(entryBytes('b1', b) + entryBytes('b2', a));
    store.delete('b1');
    expect(store.bytes).toBe(entryBytes('b2', a));
    store.clear();
    expect(store.bytes).toBe(0);
  });

  it('when the bound is passed, then the oldest ended entries leave until a tenth below it, an open one stays, and the window starts at the newest that left', () => {
    const one = entryBytes('b0', stored(ended('c'), T0));
    const onEvict = vi.fn();
    const store = new EntryStore(one * 10, EPOCH_MS, onEvict);
    store.set('b0', stored(open('c'), T0));
    for (let i = 1; i <= 10; i++) store.set(`b${i}`, stored(ended('c'), T0 + i * 1_000));
    // 11 entries passed 10: the open b0 stays, b1 and b2 leave (down to 9 of 10).
    expect([...store.keys()]).toEqual(['b0', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8', 'b9', 'b10']);
    expect(store.evictedUpToMs).toBe(T0 + 2_000);
    expect(onEvict).toHaveBeenCalledExactlyOnceWith({ count: 2, upToMs: T0 + 2_000 });
  });

  it('when an entry is written again, then it counts as new: the older ones leave before it', () => {
    const one = entryBytes('b0', stored(ended('c'), T0));
    const store = new EntryStore(one * 3, EPOCH_MS);
    store.set('b1', stored(ended('c'), T0));
    store.set('b2', stored(ended('c'), T0 + 1_000));
    store.set('b1', stored(ended('c'), T0 + 2_000));
    store.set('b3', stored(ended('c'), T0 + 3_000));
    store.set('b4', stored(ended('c'), T0 + 4_000));
    expect([...store.keys()]).toEqual(['b3', 'b4']);
    expect(store.evictedUpToMs).toBe(T0 + 2_000);
  });

  it('property: open entries never leave, ended ones leave oldest written first, the bound holds whenever the open ones fit in it, and the window start only moves forward', () => {
    // One write in four opens its entry: with one in two, the open ones passed the bound in
    // most runs and few left while the open ones fit.
    const writes = fc.array(
      fc.record({
        biz: fc.integer({ min: 0, max: 30 }),
        open: fc.nat(3).map((n) => n === 0),
        dt: fc.nat(5),
      }),
      { minLength: 10, maxLength: 200 },
    );
    const numRuns = 100;
    let evictingRuns = 0;
    fc.assert(
      fc.property(writes, fc.integer({ min: 3, max: 20 }), (steps, slots) => {
        const limit = entryBytes('b00', stored(ended('c'), T0)) * slots;
        const store = new EntryStore(limit, EPOCH_MS);
        // The bizIds held, in the order last written, and whether each is open.
        let order: string[] = [];
        const opened = new Map<string, boolean>();
        let at = T0;
        let windowStart = Number.NEGATIVE_INFINITY;
        let evicted = false;
        for (const step of steps) {
          at += step.dt * 1_000;
          const bizId = `b${String(step.biz).padStart(2, '0')}`;
          store.set(bizId, stored(step.open ? open('c') : ended('c'), at));
          order = [...order.filter((b) => b !== bizId), bizId];
          opened.set(bizId, step.open);
          const gone = order.filter((b) => !store.has(b));
          const endedInOrder = order.filter((b) => opened.get(b) === false);
          expect(gone).toEqual(endedInOrder.slice(0, gone.length));
          order = order.filter((b) => store.has(b));
          const start = store.evictedUpToMs ?? Number.NEGATIVE_INFINITY;
          expect(start).toBeGreaterThanOrEqual(windowStart);
          windowStart = start;
          const openBytes = [...store]
            .filter(([, s]) => isOpen(s))
            .reduce((sum, [b, s]) => sum + entryBytes(b, s), 0);
          if (openBytes <= limit) {
            expect(store.bytes).toBeLessThanOrEqual(limit);
            evicted ||= gone.length > 0;
          }
          expect([...store.keys()]).toEqual(order);
        }
        if (evicted) evictingRuns++;
      }),
      { numRuns },
    );
    // Runs where entries had to leave while the open ones fit: the bound was kept by evicting.
    expect(evictingRuns).toBeGreaterThan(numRuns / 10);
  });
});

describe('Ledger under a memory bound', () => {
  it('vouches for the window, or from just after the newest evicted write once entries left, plus a clock margin of at most a quarter of what it remembers', () => {
    const one = entryBytes('b0', stored(ended('c'), T0));
    const ledger = new Ledger('ledger', { partitionBytes: one * 4 });
    ledger.adopt(0, new Map(), 'acquisition');
    const now = T0 + 10_000;
    expect(ledger.vouchedSince(0, T0, 0, now)).toBe(T0);
    for (let i = 0; i < 5; i++) ledger.write(0, `b${i}`, ended('c'), T0 + i * 1_000 + 500);
    // b0 and b1 left (down to a tenth below); b1 was written at T0 + 1.5 s, kept as T0 + 1 s:
    // records before T0 + 2 s are refused.
    expect(ledger.vouchedSince(0, T0 - 3_600_000, 0, now)).toBe(T0 + 2_000);
    expect(ledger.vouchedSince(0, T0 + 6_000, 0, now)).toBe(T0 + 6_000);
    expect(ledger.vouchedSince(1, T0, 0, now)).toBe(T0);
    // The window's 5-minute margin would put the cutoff past now: a quarter of the 8 s the
    // partition remembers is taken instead.
    expect(ledger.vouchedSince(0, 0, 300_000, now)).toBe(T0 + 4_000);
    expect(ledger.windows(now, 3_600_000)).toEqual(new Map([[0, 8_000]]));
    expect(ledger.windows(now, 5_000)).toEqual(new Map([[0, 5_000]]));
  });

  it('a restore into its store evicts as it reads, and adopting a plain Map applies the bound too', () => {
    const one = entryBytes('b0', stored(ended('c'), T0));
    const ledger = new Ledger('ledger', { partitionBytes: one * 4 });
    const restored = ledger.newStore(0);
    for (let i = 0; i < 10; i++) restored.set(`b${i}`, stored(ended('c'), T0 + i * 1_000));
    ledger.adopt(0, restored, 'acquisition');
    expect(ledger.size(0)).toBeLessThanOrEqual(4);
    expect(ledger.vouchedSince(0, 0)).toBeGreaterThan(T0);
    ledger.adopt(
      1,
      new Map([...Array(10).keys()].map((i) => [`b${i}`, stored(ended('c'), T0)])),
      'acquisition',
    );
    expect(ledger.size(1)).toBeLessThanOrEqual(4);
    expect(ledger.bytes()).toBe(ledger.bytes(0) + ledger.bytes(1));
  });

  it('when the entries that left were written just now, then records stamped within the last second still pass', () => {
    const one = entryBytes('b0', stored(ended('c'), T0));
    const ledger = new Ledger('ledger', { partitionBytes: one * 2 });
    ledger.adopt(0, new Map(), 'acquisition');
    for (let i = 0; i < 4; i++) ledger.write(0, `b${i}`, ended('c'), T0);
    expect(ledger.vouchedSince(0, 0, 300_000, T0 + 200)).toBe(T0 - 800);
  });

  it('property: whatever was evicted, a record stamped at or after a second before now is never refused, one whose entry left is refused unless so stamped, and the clock margin is at most a quarter of what is remembered', () => {
    const minute = 60_000;
    const window = 7 * 24 * 60 * minute;
    const writes = fc.array(fc.record({ biz: fc.nat(40), dt: fc.nat(10 * minute) }), {
      minLength: 1,
      maxLength: 100,
    });
    const setting = fc.record({
      slots: fc.integer({ min: 2, max: 10 }),
      skew: fc.nat(5 * minute),
      sinceLast: fc.nat(10 * minute),
      recordAge: fc.nat(1_000),
    });
    const numRuns = 100;
    let refusingRuns = 0;
    fc.assert(
      fc.property(writes, setting, (steps, { slots, skew, sinceLast, recordAge }) => {
        const ledger = new Ledger('ledger', {
          partitionBytes: entryBytes('b00', stored(ended('c'), T0)) * slots,
        });
        const store = ledger.newStore(0);
        ledger.adopt(0, store, 'acquisition');
        let at = T0;
        const writtenAt = new Map<string, number>();
        for (const step of steps) {
          at += step.dt;
          const bizId = `b${String(step.biz).padStart(2, '0')}`;
          ledger.write(0, bizId, ended('c'), at);
          writtenAt.set(bizId, at);
        }
        const now = at + sinceLast;
        const since = ledger.vouchedSince(0, now - window, skew, now);
        expect(now - recordAge).toBeGreaterThanOrEqual(since);
        let refused = false;
        for (const [bizId, written] of writtenAt) {
          // A command's record is stamped at or before its entry's write (clocks in step).
          if (!store.has(bizId) && written < now - 1_000) {
            expect(written).toBeLessThan(since);
            refused = true;
          }
        }
        if (refused) refusingRuns++;
        const remembered = ledger.windows(now, window).get(0) ?? 0;
        expect(since).toBeLessThanOrEqual(now - remembered + remembered / 4);
      }),
      { numRuns },
    );
    // Runs where an entry had left and a record of it stamped before the last second was refused.
    expect(refusingRuns).toBeGreaterThan(numRuns / 10);
  });
});
