import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { KeyScheduler, type KeySchedulerOptions } from './key-scheduler.js';

interface Item {
  key: string;
  cls: 'interactive' | 'bulk';
  seq: number;
}

const WEIGHTS = new Map([
  ['interactive', 3],
  ['bulk', 1],
]);

/** A worker whose runs finish only when the test says so. */
function controlledWorker() {
  const running: Array<{ item: Item; finish: () => void }> = [];
  const started: Item[] = [];
  const worker = (item: Item) =>
    new Promise<void>((resolve) => {
      started.push(item);
      running.push({ item, finish: resolve });
    });
  const finish = async (index = 0) => {
    running.splice(index, 1)[0]?.finish();
    await new Promise<void>((resolve) => setImmediate(resolve));
  };
  return { worker, running, started, finish };
}

function scheduler(
  overrides: Partial<KeySchedulerOptions<Item>> & Pick<KeySchedulerOptions<Item>, 'worker'>,
) {
  return new KeyScheduler<Item>({
    classOf: (item) => item.cls,
    lane: (item) => item.cls,
    weights: WEIGHTS,
    maxInFlight: 4,
    maxPending: 8,
    onError: () => {},
    ...overrides,
  });
}

let seq = 0;
const item = (cls: Item['cls'], key = `${cls}-${seq}`): Item => ({ key, cls, seq: seq++ });
const push = (keys: KeyScheduler<Item>, it: Item) => keys.push(it.key, it);
const runningOf = (running: Array<{ item: Item }>, cls: Item['cls']) =>
  running.filter((run) => run.item.cls === cls).length;

describe('KeyScheduler classes', () => {
  it('when only the bulk class has work, then it may fill every slot and the whole backlog', () => {
    const { worker, running } = controlledWorker();
    const keys = scheduler({ worker });
    for (let i = 0; i < 7; i++) push(keys, item('bulk'));
    expect(running).toHaveLength(4);
    expect(keys.isSaturated('bulk')).toBe(false);
    push(keys, item('bulk'));
    expect(keys.isSaturated('bulk')).toBe(true);
    expect(keys.isSaturated('interactive')).toBe(false);
  });

  it('when the bulk class is full, then interactive items are still taken up to their share, and then the interactive class is full too', () => {
    const { worker } = controlledWorker();
    const keys = scheduler({ worker });
    for (let i = 0; i < 8; i++) push(keys, item('bulk'));
    // Shares of 8 by weight 3:1: interactive 6, bulk 2.
    for (let i = 0; i < 5; i++) {
      push(keys, item('interactive'));
      expect(keys.isSaturated('interactive')).toBe(false);
    }
    push(keys, item('interactive'));
    expect(keys.isSaturated('interactive')).toBe(true);
    expect(keys.pending).toBe(14);
  });

  it('when slots free up while both classes wait, then they go by weight: each class runs its share of the slots', async () => {
    const { worker, running, finish } = controlledWorker();
    const keys = scheduler({ worker, maxPending: 100 });
    for (let i = 0; i < 20; i++) push(keys, item('bulk'));
    expect(runningOf(running, 'bulk')).toBe(4);
    for (let i = 0; i < 20; i++) push(keys, item('interactive'));
    for (let i = 0; i < 4; i++) await finish(running.findIndex((r) => r.item.cls === 'bulk'));
    expect(runningOf(running, 'interactive')).toBe(3);
    expect(runningOf(running, 'bulk')).toBe(1);
  });

  it('when every slot runs bulk items and an interactive item comes, then it runs in the next free slot', async () => {
    const { worker, running, finish } = controlledWorker();
    const keys = scheduler({ worker, maxPending: 100 });
    for (let i = 0; i < 30; i++) push(keys, item('bulk'));
    const urgent = item('interactive');
    push(keys, urgent);
    expect(running.map((r) => r.item)).not.toContain(urgent);
    await finish(0);
    expect(running.map((r) => r.item)).toContain(urgent);
  });

  it('when a key holds items of both classes, then they still run one at a time, each class in its lane order', async () => {
    const { worker, running, started, finish } = controlledWorker();
    const keys = scheduler({ worker, maxPending: 100 });
    const mine = [item('bulk', 'k'), item('bulk', 'k'), item('interactive', 'k')];
    for (const it of mine) push(keys, it);
    while (running.length > 0) {
      expect(running).toHaveLength(1);
      await finish(0);
    }
    expect(started.filter((it) => it.cls === 'bulk')).toEqual(mine.slice(0, 2));
    expect(started).toHaveLength(3);
  });

  it('when the full class drains below half its share, then whenRelieved resolves for it', async () => {
    const { worker, finish } = controlledWorker();
    const keys = scheduler({ worker, maxInFlight: 1, maxPending: 4 });
    for (let i = 0; i < 4; i++) push(keys, item('bulk'));
    const relieved = vi.fn();
    void keys.whenRelieved('bulk').then(relieved);
    await finish(0);
    await finish(0);
    expect(relieved).not.toHaveBeenCalled();
    await finish(0);
    expect(relieved).toHaveBeenCalledOnce();
    expect(keys.byClass()).toEqual([
      { name: 'interactive', running: 0, pending: 0 },
      { name: 'bulk', running: 1, pending: 1 },
    ]);
  });

  it('whatever comes, what is taken while respecting saturation stays under twice the bounds', async () => {
    const step = fc.oneof(
      fc.record({ push: fc.constantFrom<Item['cls']>('interactive', 'bulk'), key: fc.nat(5) }),
      fc.record({ finish: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 4, max: 12 }),
        fc.array(step, { maxLength: 80 }),
        async (maxInFlight, maxPending, steps) => {
          const { worker, running, finish } = controlledWorker();
          const keys = scheduler({ worker, maxInFlight, maxPending });
          for (const s of steps) {
            if ('push' in s) {
              if (!keys.isSaturated(s.push)) push(keys, item(s.push, `${s.push}${s.key}`));
            } else if (running.length > 0) {
              await finish(s.finish % running.length);
            }
            expect(keys.pending).toBeLessThan(2 * maxPending);
            expect(running.length).toBeLessThanOrEqual(maxInFlight);
          }
          while (running.length > 0) await finish(0);
          await keys.idle();
        },
      ),
    );
  });

  it('while both classes have work, a class never starves: with one slot each starts within every round of weights; with more, each keeps a slot', async () => {
    const numRuns = 50;
    const checked = { oneSlot: 0, more: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 20 }),
        // One slot in half the runs: its rounds are checked only then.
        fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 4 })),
        fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
        async (wi, wb, maxInFlight, picks) => {
          const { worker, running, started, finish } = controlledWorker();
          const weights = new Map([
            ['interactive', wi],
            ['bulk', wb],
          ]);
          const keys = scheduler({ worker, maxInFlight, maxPending: 1_000, weights });
          for (let i = 0; i < 100; i++) push(keys, item('bulk'));
          for (let i = 0; i < 100; i++) push(keys, item('interactive'));
          let rounds = 0;
          for (const [n, pick] of picks.entries()) {
            await finish(pick % running.length);
            if (maxInFlight > 1) {
              expect(runningOf(running, 'interactive')).toBeGreaterThanOrEqual(1);
              expect(runningOf(running, 'bulk')).toBeGreaterThanOrEqual(1);
            } else if (n >= wi + wb) {
              const recent = started.slice(-(wi + wb + 1)).map((it) => it.cls);
              expect(new Set(recent)).toEqual(new Set(['interactive', 'bulk']));
              rounds++;
            }
          }
          if (maxInFlight > 1) checked.more++;
          else if (rounds > 0) checked.oneSlot++;
        },
      ),
      { numRuns },
    );
    expect(checked.oneSlot).toBeGreaterThan(numRuns / 10);
    expect(checked.more).toBeGreaterThan(numRuns / 10);
  });
});
