import { afterEach, describe, expect, it, vi } from 'vitest';
import { settlesWithin } from './deadline.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('settlesWithin', () => {
  it('when the work settles first, then it is true and no timer is left behind', async () => {
    vi.useFakeTimers();
    const within = settlesWithin(Promise.resolve(), 15_000);
    await expect(within).resolves.toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when the deadline passes first, then it is false', async () => {
    vi.useFakeTimers();
    const within = settlesWithin(new Promise(() => {}), 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(within).resolves.toBe(false);
  });
});
