import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyScheduler, type KeySchedulerOptions } from './key-scheduler.js';

interface Item {
  key: string;
  seq: number;
}

/** A worker whose runs finish only when the test says so. */
function controlledWorker() {
  const running: Array<{ item: Item; finish: () => void; fail: (error: unknown) => void }> = [];
  const started: Item[] = [];
  const worker = (item: Item) =>
    new Promise<void>((resolve, reject) => {
      started.push(item);
      running.push({ item, finish: resolve, fail: reject });
    });
  /** Finishes the run at `index` (in start order among those still running). */
  const finish = async (index = 0, error?: unknown) => {
    const [run] = running.splice(index, 1);
    if (error === undefined) run?.finish();
    else run?.fail(error);
    await settle();
  };
  return { worker, running, started, finish };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function scheduler(
  overrides: Partial<KeySchedulerOptions<Item>> & Pick<KeySchedulerOptions<Item>, 'worker'>,
) {
  return new KeyScheduler<Item>({
    maxInFlight: 10,
    maxPending: 100,
    onError: () => {},
    ...overrides,
  });
}

describe('KeyScheduler', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when items of one key are pushed, then they run one at a time in push order', async () => {
    const { worker, started, finish } = controlledWorker();
    const keys = scheduler({ worker });
    for (const seq of [1, 2, 3]) keys.push('a', { key: 'a', seq });
    expect(started.map((item) => item.seq)).toEqual([1]);
    await finish();
    expect(started.map((item) => item.seq)).toEqual([1, 2]);
    await finish();
    await finish();
    expect(started.map((item) => item.seq)).toEqual([1, 2, 3]);
  });

  it('when items of different keys are pushed, then they run at the same time', () => {
    const { worker, running } = controlledWorker();
    const keys = scheduler({ worker });
    keys.push('a', { key: 'a', seq: 1 });
    keys.push('b', { key: 'b', seq: 2 });
    expect(running.map((run) => run.item.key)).toEqual(['a', 'b']);
  });

  it('when more keys are ready than maxInFlight, then the rest wait for a free slot in push order', async () => {
    const { worker, running, finish } = controlledWorker();
    const keys = scheduler({ worker, maxInFlight: 2 });
    for (const [seq, key] of ['a', 'b', 'c', 'd'].entries()) keys.push(key, { key, seq });
    expect(running.map((run) => run.item.key)).toEqual(['a', 'b']);
    await finish(1);
    expect(running.map((run) => run.item.key)).toEqual(['a', 'c']);
  });

  it('when the in-flight limit is lowered, then running items go on and no new one starts until below it; raised, the waiting ones start at once, never past maxInFlight', async () => {
    const { worker, running, finish } = controlledWorker();
    const keys = scheduler({ worker, maxInFlight: 4 });
    for (const [seq, key] of ['a', 'b', 'c', 'd', 'e', 'f'].entries()) keys.push(key, { key, seq });
    expect(keys.saturated).toBe(true);
    keys.limitInFlight(2);
    expect(running).toHaveLength(4);
    await finish(0);
    await finish(0);
    expect(running.map((run) => run.item.key)).toEqual(['c', 'd']);
    await finish(0);
    expect(running.map((run) => run.item.key)).toEqual(['d', 'e']);
    keys.limitInFlight(100);
    expect(keys.inFlightLimit).toBe(4);
    expect(running.map((run) => run.item.key)).toEqual(['d', 'e', 'f']);
    expect(keys.saturated).toBe(false);
  });

  it('counts items waiting for their key as pending, and saturates at maxPending', async () => {
    const { worker, running, finish } = controlledWorker();
    const keys = scheduler({ worker, maxPending: 3 });
    keys.push('a', { key: 'a', seq: 1 });
    keys.push('a', { key: 'a', seq: 2 });
    expect(keys.pending).toBe(2);
    expect(running).toHaveLength(1);
    expect(keys.isSaturated()).toBe(false);
    keys.push('b', { key: 'b', seq: 3 });
    expect(keys.isSaturated()).toBe(true);
    await finish();
    expect(keys.pending).toBe(2);
    expect(keys.isSaturated()).toBe(false);
  });

  it('when pending drops below half of maxPending, then whenRelieved resolves', async () => {
    const { worker, finish } = controlledWorker();
    const keys = scheduler({ worker, maxPending: 4 });
    for (const seq of [1, 2, 3]) keys.push(`k${seq}`, { key: `k${seq}`, seq });
    const relieved = vi.fn();
    void keys.whenRelieved().then(relieved);
    await finish();
    expect(relieved).not.toHaveBeenCalled();
    await finish();
    expect(relieved).toHaveBeenCalledOnce();
  });

  it('when the pending items reach maxPendingSize, then it is saturated until less than half of that size is pending', async () => {
    const { worker, finish } = controlledWorker();
    const keys = scheduler({ worker, size: (item) => item.seq, maxPendingSize: 10 });
    keys.push('a', { key: 'a', seq: 4 });
    keys.push('b', { key: 'b', seq: 5 });
    expect(keys.isSaturated()).toBe(false);
    keys.push('c', { key: 'c', seq: 1 });
    expect(keys.isSaturated()).toBe(true);
    const relieved = vi.fn();
    void keys.whenRelieved().then(relieved);
    await finish(0);
    expect(keys.isSaturated()).toBe(false);
    expect(relieved).not.toHaveBeenCalled();
    await finish(0);
    expect(relieved).toHaveBeenCalledOnce();
  });

  it('when nothing is pending, then idle resolves at once; otherwise once all items finish', async () => {
    const { worker, finish } = controlledWorker();
    const keys = scheduler({ worker });
    await keys.idle();
    keys.push('a', { key: 'a', seq: 1 });
    keys.push('a', { key: 'a', seq: 2 });
    const idle = vi.fn();
    void keys.idle().then(idle);
    await finish();
    expect(idle).not.toHaveBeenCalled();
    await finish();
    expect(idle).toHaveBeenCalledOnce();
  });

  it('when cleared, then matching queued items are dropped and returned but running ones are kept', async () => {
    const { worker, started, finish } = controlledWorker();
    const keys = scheduler({ worker, maxInFlight: 1 });
    const items: Item[] = [
      { key: 'p0', seq: 1 },
      { key: 'p0', seq: 2 },
      { key: 'p1', seq: 3 },
      { key: 'p0', seq: 4 },
    ];
    for (const item of items) keys.push(item.key, item);
    const dropped = keys.clear((_, key) => key === 'p0');
    expect(dropped.map((item) => item.seq)).toEqual([2, 4]);
    expect(keys.pending).toBe(2);
    await finish();
    await finish();
    expect(started.map((item) => item.seq)).toEqual([1, 3]);
    await keys.idle();
  });

  it('when a run yields its slot, then another key runs in it while the key and the item stay held until the run ends', async () => {
    const yields: Array<() => void> = [];
    const ends: Array<() => void> = [];
    const started: Item[] = [];
    const keys = scheduler({
      maxInFlight: 1,
      worker: (item, yieldSlot) =>
        new Promise<void>((resolve) => {
          started.push(item);
          yields.push(yieldSlot);
          ends.push(resolve);
        }),
    });
    keys.push('a', { key: 'a', seq: 1 });
    keys.push('a', { key: 'a', seq: 2 });
    keys.push('b', { key: 'b', seq: 3 });
    expect(started.map((item) => item.seq)).toEqual([1]);
    yields[0]?.();
    yields[0]?.(); // a second call changes nothing
    expect(started.map((item) => item.seq)).toEqual([1, 3]);
    expect(keys.running).toBe(1);
    expect(keys.pending).toBe(3);
    ends[0]?.();
    await settle();
    // The slot is b's now: a's next item waits for it, not for a.
    expect(started.map((item) => item.seq)).toEqual([1, 3]);
    expect(keys.pending).toBe(2);
    ends[1]?.();
    await settle();
    expect(started.map((item) => item.seq)).toEqual([1, 3, 2]);
    ends[2]?.();
    await keys.idle();
    expect(keys.running).toBe(0);
  });

  it('when the worker throws, then onError gets the error and the key moves on to its next item', async () => {
    const { worker, started, finish } = controlledWorker();
    const onError = vi.fn();
    const keys = scheduler({ worker, onError });
    keys.push('a', { key: 'a', seq: 1 });
    keys.push('a', { key: 'a', seq: 2 });
    const boom = new Error('boom');
    await finish(0, boom);
    expect(onError).toHaveBeenCalledWith(boom, { key: 'a', seq: 1 });
    expect(started.map((item) => item.seq)).toEqual([1, 2]);
  });

  it('when the worker throws synchronously, then onError still gets the error', async () => {
    const onError = vi.fn();
    const keys = scheduler({
      worker: () => {
        throw new Error('sync');
      },
      onError,
    });
    keys.push('a', { key: 'a', seq: 1 });
    await keys.idle();
    expect(onError).toHaveBeenCalledWith(new Error('sync'), { key: 'a', seq: 1 });
  });

  it.each([{ maxInFlight: 0 }, { maxPending: 0 }])(
    'rejects invalid options %o with a RangeError',
    (options) => {
      expect(() => scheduler({ worker: async () => {}, ...options })).toThrow(RangeError);
    },
  );

  it('keeps per-key push order, never exceeds maxInFlight and leaves no slot idle while a key has work', async () => {
    const arbCommand = fc.oneof(
      fc.record({ push: fc.constantFrom('a', 'b', 'c', 'd', 'e') }),
      fc.record({ finish: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(arbCommand, { maxLength: 60 }),
        async (maxInFlight, commands) => {
          const { worker, running, started, finish } = controlledWorker();
          const keys = scheduler({ worker, maxInFlight });
          const pushed: Item[] = [];
          const check = () => {
            const runningKeys = running.map((run) => run.item.key);
            expect(new Set(runningKeys).size).toBe(runningKeys.length);
            // Work-conserving: every key with work runs unless all slots are taken.
            const done = started.filter((item) => !running.some((run) => run.item === item));
            const keysWithWork = new Set(
              pushed.filter((item) => !done.includes(item)).map((item) => item.key),
            );
            expect(running.length).toBe(Math.min(maxInFlight, keysWithWork.size));
          };
          for (const command of commands) {
            if ('push' in command) {
              const item = { key: command.push, seq: pushed.length };
              pushed.push(item);
              keys.push(item.key, item);
            } else if (running.length > 0) {
              await finish(command.finish % running.length);
            }
            check();
          }
          while (running.length > 0) {
            await finish(running.length - 1);
            check();
          }
          await keys.idle();
          for (const key of new Set(pushed.map((item) => item.key))) {
            const order = (items: Item[]) => items.filter((item) => item.key === key);
            expect(order(started)).toEqual(order(pushed));
          }
          expect(started).toHaveLength(pushed.length);
        },
      ),
    );
  });

  it('keeps per-key order under random delays on fake timers', async () => {
    vi.useFakeTimers();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'c'), delay: fc.nat(50) }), {
          maxLength: 30,
        }),
        async (items) => {
          const finished: number[] = [];
          const keys = new KeyScheduler<number>({
            worker: async (index) => {
              await new Promise((resolve) => setTimeout(resolve, items[index]?.delay));
              finished.push(index);
            },
            maxInFlight: 2,
            maxPending: 100,
            onError: () => {},
          });
          for (const [index, item] of items.entries()) keys.push(item.key, index);
          await vi.runAllTimersAsync();
          await keys.idle();
          for (const key of ['a', 'b', 'c']) {
            const ofKey = (indexes: number[]) =>
              indexes.filter((index) => items[index]?.key === key);
            expect(ofKey(finished)).toEqual(ofKey(items.map((_, index) => index)));
          }
        },
      ),
    );
  });
});

describe('KeyScheduler retries and lanes', () => {
  interface LanedItem {
    key: string;
    lane: string;
    seq: number;
  }

  /** A worker that asks for a retry while `retries` says so, recording each start. */
  function retryingWorker(retries: Map<number, number>) {
    const started: number[] = [];
    const worker = async (item: LanedItem) => {
      started.push(item.seq);
      const left = retries.get(item.seq) ?? 0;
      if (left === 0) return undefined;
      retries.set(item.seq, left - 1);
      return { retryInMs: 100 };
    };
    return { worker, started };
  }

  function lanedScheduler(worker: (item: LanedItem) => Promise<{ retryInMs: number } | undefined>) {
    return new KeyScheduler<LanedItem>({
      worker,
      lane: (item) => item.lane,
      maxInFlight: 10,
      maxPending: 100,
      onError: () => {},
    });
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('when an item asks to retry, then later items of its lane wait and it runs again after the delay', async () => {
    vi.useFakeTimers();
    const { worker, started } = retryingWorker(new Map([[1, 1]]));
    const keys = lanedScheduler(worker);
    keys.push('a', { key: 'a', lane: 'x', seq: 1 });
    keys.push('a', { key: 'a', lane: 'x', seq: 2 });
    await vi.advanceTimersByTimeAsync(50);
    expect(started).toEqual([1]);
    expect(keys.pending).toBe(2);
    expect(keys.running).toBe(0);
    await vi.advanceTimersByTimeAsync(60);
    await keys.idle();
    expect(started).toEqual([1, 1, 2]);
  });

  it('when an item waits to retry, then items of its key in other lanes run meanwhile, one at a time', async () => {
    vi.useFakeTimers();
    const { worker, started } = retryingWorker(new Map([[1, 1]]));
    const keys = lanedScheduler(worker);
    keys.push('a', { key: 'a', lane: 'initiate', seq: 1 });
    keys.push('a', { key: 'a', lane: 'initiate', seq: 2 });
    keys.push('a', { key: 'a', lane: 'create', seq: 3 });
    keys.push('a', { key: 'a', lane: 'create', seq: 4 });
    await vi.advanceTimersByTimeAsync(10);
    expect(started).toEqual([1, 3, 4]);
    await vi.advanceTimersByTimeAsync(100);
    await keys.idle();
    expect(started).toEqual([1, 3, 4, 1, 2]);
  });

  it('when an item keeps retrying (a command waiting for its contract), then an item of another lane of its key that was ready before it runs first at the key’s next turn', async () => {
    vi.useFakeTimers();
    const started: string[] = [];
    const keys = new KeyScheduler<LanedItem>({
      worker: async (item) => {
        started.push(`${item.key}${item.seq}`);
        if (item.key === 'b') await new Promise((resolve) => setTimeout(resolve, 150));
        // a1 waits for what a2 makes: it retries until a2 ran.
        if (item.key === 'a' && item.seq === 1 && !started.includes('a2'))
          return { retryInMs: 100 };
        return undefined;
      },
      lane: (item) => item.lane,
      maxInFlight: 1,
      maxPending: 100,
      onError: () => {},
    });
    keys.push('a', { key: 'a', lane: 'add-document', seq: 1 });
    keys.push('a', { key: 'a', lane: 'create-contract', seq: 2 });
    for (const seq of [1, 2, 3]) keys.push('b', { key: 'b', lane: '', seq });
    await vi.advanceTimersByTimeAsync(1_000);
    await keys.idle();
    // By a's second turn a1's retry delay is over, yet a2 was ready before it.
    expect(started.slice(0, 3)).toEqual(['a1', 'b1', 'a2']);
    expect(started).toContain('a1');
    expect(started.filter((s) => s === 'a1')).toHaveLength(2);
  });

  it('when items wait to retry, then they hold no slot but still count as pending', async () => {
    vi.useFakeTimers();
    const { worker, started } = retryingWorker(new Map([[1, 1]]));
    const keys = new KeyScheduler<LanedItem>({
      worker,
      maxInFlight: 1,
      maxPending: 2,
      onError: () => {},
    });
    keys.push('a', { key: 'a', lane: '', seq: 1 });
    await vi.advanceTimersByTimeAsync(1);
    keys.push('b', { key: 'b', lane: '', seq: 2 });
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual([1, 2]);
    expect(keys.pending).toBe(1);
    keys.push('c', { key: 'c', lane: '', seq: 3 });
    expect(keys.isSaturated()).toBe(true);
    await vi.advanceTimersByTimeAsync(200);
    await keys.idle();
  });

  it('when cleared, then items waiting to retry are dropped and never run again', async () => {
    vi.useFakeTimers();
    const { worker, started } = retryingWorker(new Map([[1, 5]]));
    const keys = lanedScheduler(worker);
    keys.push('a', { key: 'a', lane: 'x', seq: 1 });
    await vi.advanceTimersByTimeAsync(1);
    expect(keys.clear(() => true).map((item) => item.seq)).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toEqual([1]);
    await keys.idle();
  });

  it('when an item asks to wait until told, then it holds no slot and no timer, and runs again only once told; cleared meanwhile, it stops waiting', async () => {
    vi.useFakeTimers();
    const resumes: Array<() => void> = [];
    const stops: Array<() => void> = [];
    const until = (resume: () => void) => {
      resumes.push(resume);
      stops.push(vi.fn());
      return stops.at(-1) as () => void;
    };
    const started: number[] = [];
    const keys = scheduler({
      worker: async (item) => {
        started.push(item.seq);
        return started.length <= 2 ? { retryInMs: Number.POSITIVE_INFINITY, until } : undefined;
      },
      maxInFlight: 1,
    });
    keys.push('a', { key: 'a', seq: 1 });
    keys.push('b', { key: 'b', seq: 2 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect([started, keys.running, keys.pending, vi.getTimerCount()]).toEqual([[1, 2], 0, 2, 0]);
    resumes[0]?.();
    await vi.advanceTimersByTimeAsync(0);
    expect([started, keys.pending]).toEqual([[1, 2, 1], 1]);
    expect(keys.clear(() => true).map((item) => item.seq)).toEqual([2]);
    expect(stops[1]).toHaveBeenCalledOnce();
    await keys.idle();
  });
});
