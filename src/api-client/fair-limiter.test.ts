import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PRIORITY, FairLimiter, type FairLimiterOptions } from './fair-limiter.js';

/** A limiter on the fake clock. */
function limiter(options: Omit<FairLimiterOptions, 'now'>): FairLimiter {
  return new FairLimiter({ ...options, now: () => Date.now() });
}

/** Takes for each priority given, in order, all at once; returns the grants in order. */
async function grants(bucket: FairLimiter, priorities: readonly string[]) {
  const start = Date.now();
  const order: Array<{ priority: string; index: number; at: number }> = [];
  const takes = priorities.map((priority, index) =>
    bucket.take(priority).then(() => order.push({ priority, index, at: Date.now() - start })),
  );
  await vi.runAllTimersAsync();
  await Promise.all(takes);
  return order;
}

const weights = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('FairLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when N callers of one priority take at once at rate R, then they go 1000/R ms apart in call order', async () => {
    const order = await grants(limiter({ ratePerSecond: 10 }), ['', '', '', '', '']);
    expect(order.map((g) => g.index)).toEqual([0, 1, 2, 3, 4]);
    expect(order.map((g) => g.at)).toEqual([0, 100, 200, 300, 400]);
  });

  it('when a burst is allowed, then that many go at once and, after an idle moment, again', async () => {
    const bucket = limiter({ ratePerSecond: 10, burst: 3 });
    expect((await grants(bucket, Array(5).fill(''))).map((g) => g.at)).toEqual([0, 0, 0, 100, 200]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await grants(bucket, Array(4).fill(''))).map((g) => g.at)).toEqual([0, 0, 0, 100]);
  });

  it('when bulk callers queue and an interactive one comes, then it has the next token', async () => {
    const bucket = limiter({ ratePerSecond: 10, weights: weights({ interactive: 4, bulk: 1 }) });
    const start = Date.now();
    const bulk = Array.from({ length: 50 }, () => bucket.take('bulk'));
    await vi.advanceTimersByTimeAsync(1_050);
    const waited = bucket.take('interactive');
    await vi.advanceTimersByTimeAsync(100);
    expect(await waited).toBeLessThanOrEqual(100);
    expect(Date.now() - start).toBe(1_150);
    expect(bucket.waiting).toBe(50 - 11);
    await vi.runAllTimersAsync();
    await Promise.all(bulk);
  });

  it('when priorities wait together, then each gets tokens in proportion to its weight, first come first served within it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 5, max: 40 }),
        async (wa, wb, n) => {
          const bucket = limiter({ ratePerSecond: 100, weights: weights({ a: wa, b: wb }) });
          const order = await grants(bucket, [...Array(n).fill('a'), ...Array(n).fill('b')]);
          const served = { a: 0, b: 0 };
          for (const [k, grant] of order.entries()) {
            served[grant.priority as 'a' | 'b'] += 1;
            if (served.a === n || served.b === n) break;
            const fairA = ((k + 1) * wa) / (wa + wb);
            expect(Math.abs(served.a - fairA)).toBeLessThanOrEqual(2);
          }
          for (const name of ['a', 'b']) {
            const indexes = order.filter((g) => g.priority === name).map((g) => g.index);
            expect(indexes).toEqual([...indexes].sort((x, y) => x - y));
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('grants at most burst + R*W/1000 tokens in any window of W ms, whatever the call times and priorities', async () => {
    const call = fc.record({
      gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3_000 })),
      priority: fc.constantFrom('a', 'b', 'c'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0.5, max: 1_000, noNaN: true }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(call, { minLength: 1, maxLength: 40 }),
        async (ratePerSecond, burst, calls) => {
          const bucket = limiter({ ratePerSecond, burst, weights: weights({ a: 3, b: 1 }) });
          const times: number[] = [];
          const takes: Array<Promise<unknown>> = [];
          for (const { gap, priority } of calls) {
            await vi.advanceTimersByTimeAsync(gap);
            takes.push(bucket.take(priority).then(() => times.push(Date.now())));
          }
          await vi.runAllTimersAsync();
          await Promise.all(takes);
          const sorted = [...times].sort((x, y) => x - y);
          for (let i = 0; i < sorted.length; i++) {
            for (let j = i; j < sorted.length; j++) {
              const windowMs = (sorted[j] as number) - (sorted[i] as number);
              // Timers fire on whole milliseconds: a grant may come up to 1 ms after its time.
              const allowed = burst + (ratePerSecond * (windowMs + 1)) / 1000;
              expect(j - i + 1).toBeLessThanOrEqual(allowed + 1e-6);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('when the rate is 0, then nothing is granted until it is raised; Infinity grants everything at once', async () => {
    const bucket = limiter({ ratePerSecond: 10 });
    await bucket.take();
    bucket.setRate(0);
    let granted = false;
    const waiting = bucket.take().then(() => {
      granted = true;
    });
    await vi.advanceTimersByTimeAsync(600_000);
    expect(granted).toBe(false);
    bucket.setRate(Number.POSITIVE_INFINITY);
    await waiting;
    expect((await grants(bucket, Array(1_000).fill(''))).every((g) => g.at === 0)).toBe(true);
  });

  it('when the timers that grant tokens fire late, then the lateness is made up: the rate holds', async () => {
    // Every timer fires 7 ms after it was due, as on a busy event loop.
    // Swapped by hand, not spied on: a spy restored over the fake clock's setTimeout kept the fake
    // one in place after the clock was uninstalled, for every later file of the worker.
    const setTimer = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number) =>
      setTimer(fn, (ms ?? 0) + 7)) as typeof setTimeout;
    const order = await grants(limiter({ ratePerSecond: 20 }), Array(21).fill('')).finally(() => {
      globalThis.setTimeout = setTimer;
    });
    // 20 intervals of 50 ms after the first, and one timer's lateness: not 20 of 57 ms.
    expect(order.at(-1)?.at).toBeLessThanOrEqual(1_000 + 7);
  });

  it('when the rate changes while callers wait, then the next token comes at the new pace', async () => {
    const bucket = limiter({ ratePerSecond: 1 });
    await bucket.take();
    const start = Date.now();
    const next = bucket.take().then(() => Date.now() - start);
    await vi.advanceTimersByTimeAsync(100);
    // A tenth of a token has come in at 1/s; the other nine tenths take 90 ms at 10/s.
    bucket.setRate(10);
    await vi.runAllTimersAsync();
    expect(await next).toBe(190);
  });

  it('when paused until a time, then no token is granted before it', async () => {
    const bucket = limiter({ ratePerSecond: 100 });
    const start = Date.now();
    bucket.pauseUntil(start + 1_000);
    bucket.pauseUntil(start + 500);
    const order = await grants(bucket, ['', '']);
    expect(order.map((g) => g.at)).toEqual([1_000, 1_010]);
  });

  it('when the signal aborts while waiting, then take rejects with the reason and the token goes to the next caller', async () => {
    const bucket = limiter({ ratePerSecond: 10 });
    const controller = new AbortController();
    const start = Date.now();
    await bucket.take();
    const aborted = bucket.take('', controller.signal);
    const later = bucket.take().then(() => Date.now() - start);
    controller.abort(new Error('shutdown'));
    await expect(aborted).rejects.toThrow('shutdown');
    await vi.runAllTimersAsync();
    expect(await later).toBe(100);
    await expect(bucket.take('', AbortSignal.abort('gone'))).rejects.toBe('gone');
    expect(bucket.waiting).toBe(0);
  });

  it('when a priority is not among the weights, then it is served as the default one', async () => {
    const bucket = limiter({ ratePerSecond: 10, weights: weights({ heavy: 5 }) });
    const order = await grants(bucket, ['heavy', 'unknown', DEFAULT_PRIORITY, 'heavy']);
    expect(order.map((g) => g.index)).toEqual([0, 1, 3, 2]);
  });

  it.each([
    { ratePerSecond: -1 },
    { ratePerSecond: Number.NaN },
    { ratePerSecond: 1, burst: 0 },
    { ratePerSecond: 1, burst: 1.5 },
  ])('rejects invalid options %o with a RangeError', (options) => {
    expect(() => new FairLimiter(options)).toThrow(RangeError);
  });
});
