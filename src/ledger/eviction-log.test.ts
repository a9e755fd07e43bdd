import { afterEach, describe, expect, it, vi } from 'vitest';
import { EvictionLog } from './eviction-log.js';

const T = Date.UTC(2026, 10, 1);

describe('EvictionLog', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('logs the first eviction at once, then at most one line a minute with what left meanwhile', () => {
    vi.useFakeTimers({ now: T });
    const warn = vi.fn();
    const log = new EvictionLog({ warn } as never, 60_000);
    log.evicted(0, { count: 5, upToMs: T });
    vi.advanceTimersByTime(1_000);
    log.evicted(1, { count: 2, upToMs: T + 1_000 });
    vi.advanceTimersByTime(29_000);
    log.evicted(1, { count: 3, upToMs: T + 2_000 });
    vi.advanceTimersByTime(15_000);
    log.evicted(0, { count: 1, upToMs: T + 3_000 });
    expect(warn).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(15_000);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[1]?.[0]).toEqual({
      evicted: 6,
      evictedUpTo: {
        0: new Date(T + 3_000).toISOString(),
        1: new Date(T + 2_000).toISOString(),
      },
    });
    expect(warn.mock.calls[1]?.[1]).toContain('LEDGER_MEMORY_BYTES');
  });

  it('when evictions within the minute after a line are the last, then they are logged when the minute is over', () => {
    vi.useFakeTimers({ now: T });
    const warn = vi.fn();
    const log = new EvictionLog({ warn } as never, 60_000);
    log.evicted(0, { count: 5, upToMs: T });
    vi.advanceTimersByTime(10_000);
    log.evicted(2, { count: 4, upToMs: T + 10_000 });
    vi.advanceTimersByTime(49_999);
    expect(warn).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(1);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[1]?.[0]).toEqual({
      evicted: 4,
      evictedUpTo: { 2: new Date(T + 10_000).toISOString() },
    });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when the wall clock steps back an hour after a line, then the next is still due a minute later: the minute is monotonic', () => {
    vi.useFakeTimers({ now: T });
    const warn = vi.fn();
    const log = new EvictionLog({ warn } as never, 60_000);
    log.evicted(0, { count: 5, upToMs: T });
    vi.setSystemTime(T - 3_600_000);
    vi.advanceTimersByTime(60_000);
    log.evicted(0, { count: 1, upToMs: T + 1 });
    expect(warn).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when the wall clock steps forward an hour after a line, then evictions within the minute still wait for it', () => {
    vi.useFakeTimers({ now: T });
    const warn = vi.fn();
    const log = new EvictionLog({ warn } as never, 60_000);
    log.evicted(0, { count: 5, upToMs: T });
    vi.setSystemTime(T + 3_600_000);
    log.evicted(0, { count: 1, upToMs: T + 1 });
    expect(warn).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(60_000);
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('when stopped with evictions not yet logged, then they are logged and no timer is left', () => {
    vi.useFakeTimers({ now: T });
    const warn = vi.fn();
    const log = new EvictionLog({ warn } as never, 60_000);
    log.evicted(0, { count: 5, upToMs: T });
    log.evicted(0, { count: 1, upToMs: T + 1 });
    expect(vi.getTimerCount()).toBe(1);
    log.stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(warn.mock.calls.map(([fields]) => fields.evicted)).toEqual([5, 1]);
    log.stop();
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
