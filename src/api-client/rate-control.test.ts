/**
 * Waits are measured on the monotonic clock: moving the wall clock (an NTP step, a VM resumed)
 * neither lets a token out early nor holds one back. vitest's fake timers fake `performance.now`
 * and `Date` apart: `vi.setSystemTime` moves only the wall clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PlatformRejected } from '../errors.js';
import { FairLimiter } from './fair-limiter.js';
import { RateControl } from './rate-control.js';

const YEAR_MS = 365 * 24 * 3_600_000;
const JUMPS = [
  ['far forward', YEAR_MS],
  ['far back', -YEAR_MS],
] as const;

const throttled = () =>
  new PlatformRejected('429', {
    details: {
      operation: 'remindSignatories',
      platformCode: '429',
      rawCode: '429',
      platformName: 'TOO MANY REQUESTS',
      platformMessage: '',
      httpStatus: 429,
      family: 'throttled',
    },
  });

/** Whether the promise has settled, after letting callbacks run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('waits on the monotonic clock', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(JUMPS)(
    'when the wall clock moves %s, then a token still comes after 1/rate',
    async (_, jump) => {
      // The limiter's own clock: its default, performance.now().
      const limiter = new FairLimiter({ ratePerSecond: 1 });
      await limiter.take();
      await vi.advanceTimersByTimeAsync(300);
      vi.setSystemTime(Date.now() + jump);
      const next = limiter.take();
      await vi.advanceTimersByTimeAsync(699);
      expect(await settled(next)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await settled(next)).toBe(true);
    },
  );

  it.each(JUMPS)(
    'when the wall clock moves %s after a retry-after in seconds, then the pause lasts its seconds',
    async (_, jump) => {
      const rate = new RateControl({ requestsPerSecond: Number.POSITIVE_INFINITY });
      rate.answered(throttled(), '2');
      const next = rate.take(undefined, undefined);
      vi.setSystemTime(Date.now() + jump);
      await vi.advanceTimersByTimeAsync(1_999);
      expect(await settled(next)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await settled(next)).toBe(true);
      rate.close();
    },
  );

  it.each(JUMPS)(
    'when the wall clock moves %s after a retry-after as an HTTP date, then the date was read once into a delay',
    async (_, jump) => {
      const rate = new RateControl({ requestsPerSecond: Number.POSITIVE_INFINITY });
      // Whole seconds, as an HTTP date has them.
      vi.setSystemTime(Date.UTC(2030, 0, 1, 12, 0, 0));
      rate.answered(throttled(), new Date(Date.now() + 5_000).toUTCString());
      const next = rate.take(undefined, undefined);
      vi.setSystemTime(Date.now() + jump);
      await vi.advanceTimersByTimeAsync(4_999);
      expect(await settled(next)).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await settled(next)).toBe(true);
      rate.close();
    },
  );

  it.each(JUMPS)(
    'when the wall clock moves %s after throttling, then the rate grows back a tenth a second, no faster',
    async (_, jump) => {
      const rate = new RateControl({ requestsPerSecond: 10 });
      rate.answered(throttled(), undefined);
      expect(rate.inForce).toBe(5);
      vi.setSystemTime(Date.now() + jump);
      await vi.advanceTimersByTimeAsync(999);
      expect(rate.inForce).toBe(5);
      await vi.advanceTimersByTimeAsync(1);
      expect(rate.inForce).toBeCloseTo(6, 9);
      rate.close();
    },
  );
});
