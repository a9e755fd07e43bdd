import { describe, expect, it, vi } from 'vitest';
import { EvictionLog } from './eviction-log.js';

describe('EvictionLog', () => {
  it('logs the first eviction at once, then at most one line a minute with what left meanwhile', () => {
    const warn = vi.fn();
    const log = new EvictionLog({ warn } as never, 60_000);
    const t = Date.UTC(2026, 10, 1);
    log.evicted(0, { count: 5, upToMs: t }, t);
    log.evicted(1, { count: 2, upToMs: t + 1_000 }, t + 1_000);
    log.evicted(1, { count: 3, upToMs: t + 2_000 }, t + 30_000);
    expect(warn).toHaveBeenCalledOnce();
    log.evicted(0, { count: 1, upToMs: t + 3_000 }, t + 60_000);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[1]?.[0]).toEqual({
      evicted: 6,
      evictedUpTo: {
        0: new Date(t + 3_000).toISOString(),
        1: new Date(t + 2_000).toISOString(),
      },
    });
    expect(warn.mock.calls[1]?.[1]).toContain('LEDGER_MEMORY_BYTES');
  });
});
