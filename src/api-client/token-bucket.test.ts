import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type RateLimit, reserve, TokenBucket } from './token-bucket.js';

/** A sleep on the global timers, so vitest's fake timers control it. */
function timerSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

function fakeBucket(ratePerSecond: number, burst?: number): TokenBucket {
  return new TokenBucket({ ratePerSecond, burst, now: () => Date.now(), sleep: timerSleep });
}

/** Starts `n` take() calls at once and records when each resolves, relative to the start. */
async function completionTimes(bucket: TokenBucket, n: number): Promise<number[]> {
  const start = Date.now();
  const times: number[] = [];
  const takes = Array.from({ length: n }, () =>
    bucket.take().then(() => times.push(Date.now() - start)),
  );
  await vi.runAllTimersAsync();
  await Promise.all(takes);
  return times;
}

describe('TokenBucket', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when N callers take at once at rate R, then they complete 1000/R ms apart in call order', async () => {
    const order: number[] = [];
    const bucket = fakeBucket(10);
    const start = Date.now();
    const times: number[] = [];
    const takes = [0, 1, 2, 3, 4].map((i) =>
      bucket.take().then(() => {
        order.push(i);
        times.push(Date.now() - start);
      }),
    );
    await vi.runAllTimersAsync();
    await Promise.all(takes);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(times).toEqual([0, 100, 200, 300, 400]);
  });

  it('when a burst is allowed, then that many go at once and the rest are spaced evenly', async () => {
    expect(await completionTimes(fakeBucket(10, 3), 6)).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('when the bucket has been idle, then the burst is available again', async () => {
    const bucket = fakeBucket(10, 2);
    await completionTimes(bucket, 4);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await completionTimes(bucket, 3)).toEqual([0, 0, 100]);
  });

  it.each([0, Number.POSITIVE_INFINITY])(
    'when ratePerSecond is %s, then take never waits',
    async (rate) => {
      const sleep = vi.fn(timerSleep);
      const bucket = new TokenBucket({ ratePerSecond: rate, sleep });
      await Promise.all(Array.from({ length: 1_000 }, () => bucket.take()));
      expect(sleep).not.toHaveBeenCalled();
    },
  );

  it('when the signal aborts while waiting, then take rejects with the reason and later callers keep their slots', async () => {
    const bucket = fakeBucket(10);
    const controller = new AbortController();
    const start = Date.now();
    await bucket.take();
    const aborted = bucket.take(controller.signal);
    const later = bucket.take().then(() => Date.now() - start);
    controller.abort(new Error('shutdown'));
    await expect(aborted).rejects.toThrow('shutdown');
    await vi.runAllTimersAsync();
    expect(await later).toBe(200);
  });

  it('when the signal is already aborted, then take rejects without reserving a slot', async () => {
    const bucket = fakeBucket(10);
    await expect(bucket.take(AbortSignal.abort('gone'))).rejects.toBe('gone');
    expect(await completionTimes(bucket, 1)).toEqual([0]);
  });

  it.each([
    { ratePerSecond: -1 },
    { ratePerSecond: Number.NaN },
    { ratePerSecond: 1, burst: 0 },
    { ratePerSecond: 1, burst: 1.5 },
  ])('rejects invalid options %o with a RangeError', (options) => {
    expect(() => new TokenBucket(options)).toThrow(RangeError);
  });
});

describe('TokenBucket with real timers', () => {
  it('spaces callers by the real clock', async () => {
    const bucket = new TokenBucket({ ratePerSecond: 200 });
    const start = performance.now();
    await Promise.all([bucket.take(), bucket.take(), bucket.take()]);
    expect(performance.now() - start).toBeGreaterThanOrEqual(9);
  });
});

describe('reserve', () => {
  const arbLimit = fc.record({
    ratePerSecond: fc.double({ min: 0.5, max: 1_000, noNaN: true }),
    burst: fc.integer({ min: 1, max: 10 }),
  });
  const arbCallGaps = fc.array(
    fc.oneof(fc.constant(0), fc.double({ min: 0, max: 3_000, noNaN: true })),
    {
      minLength: 1,
      maxLength: 60,
    },
  );

  it('grants at most burst + R*W/1000 tokens in any window of W ms, whatever the call times', () => {
    fc.assert(
      fc.property(arbLimit, arbCallGaps, ({ ratePerSecond, burst }, gaps) => {
        const limit: RateLimit = { intervalMs: 1000 / ratePerSecond, burst };
        let tat = Number.NEGATIVE_INFINITY;
        let now = 0;
        const due: number[] = [];
        for (const gap of gaps) {
          now += gap;
          const reservation = reserve(tat, now, limit);
          expect(reservation.dueAt).toBeGreaterThanOrEqual(now);
          due.push(reservation.dueAt);
          tat = reservation.tat;
        }
        // Reservations come out in call order, so the tightest windows start and end on grants.
        for (let i = 0; i < due.length; i++) {
          for (let j = i; j < due.length; j++) {
            const windowMs = (due[j] as number) - (due[i] as number);
            const allowed = burst + (ratePerSecond * windowMs) / 1000;
            expect(j - i + 1).toBeLessThanOrEqual(allowed + 1e-6);
          }
        }
      }),
    );
  });

  it('when calls keep coming, then grants are exactly one interval apart after the burst', () => {
    const limit: RateLimit = { intervalMs: 250, burst: 2 };
    let tat = Number.NEGATIVE_INFINITY;
    const due: number[] = [];
    for (let i = 0; i < 5; i++) {
      const reservation = reserve(tat, 1_000, limit);
      due.push(reservation.dueAt);
      tat = reservation.tat;
    }
    expect(due).toEqual([1_000, 1_000, 1_250, 1_500, 1_750]);
  });
});
