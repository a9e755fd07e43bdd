/**
 * Commands waiting for their precondition never keep their prerequisite out (docs/design.md,
 * "Hot keys"): items waiting out a retry delay do not count when the class decides whether to take
 * more create-contracts.
 */
import { describe, expect, it, vi } from 'vitest';
import { KeyScheduler } from './key-scheduler.js';

interface Item {
  key: string;
  waits: boolean;
}

function scheduler() {
  const retried: Item[] = [];
  const keys = new KeyScheduler<Item>({
    // A waiting item asks to run again in a minute; others never finish in this test.
    worker: (item) => {
      if (item.waits) {
        retried.push(item);
        return Promise.resolve({ retryInMs: 60_000 });
      }
      return new Promise(() => {});
    },
    lane: () => 'add-document',
    maxInFlight: 4,
    maxPending: 4,
    onError: () => {},
  });
  return { keys, retried };
}

describe('KeyScheduler, items waiting out a retry', () => {
  it('when the backlog is full of items waiting to retry, then the class is saturated for others but not for prerequisites', async () => {
    vi.useFakeTimers();
    try {
      const { keys, retried } = scheduler();
      for (let i = 0; i < 4; i++) keys.push(`c${i}`, { key: `c${i}`, waits: true });
      await vi.waitFor(() => expect(retried).toHaveLength(4));
      expect(keys.isSaturated()).toBe(true);
      expect(keys.isSaturatedForPrerequisites()).toBe(false);
      const relieved = vi.fn();
      void keys.whenRelievedForPrerequisites().then(relieved);
      await Promise.resolve();
      expect(relieved).toHaveBeenCalledOnce();
    } finally {
      vi.useRealTimers();
    }
  });

  it('when the backlog is full of items that run, then prerequisites are saturated too', () => {
    const { keys } = scheduler();
    for (let i = 0; i < 4; i++) keys.push(`c${i}`, { key: `c${i}`, waits: false });
    expect(keys.isSaturatedForPrerequisites()).toBe(true);
  });

  it('when a waiting item runs again or is cleared, then it counts again, or no more', async () => {
    vi.useFakeTimers();
    try {
      const { keys, retried } = scheduler();
      for (let i = 0; i < 4; i++) keys.push(`c${i}`, { key: `c${i}`, waits: true });
      await vi.waitFor(() => expect(retried).toHaveLength(4));
      expect(keys.isSaturatedForPrerequisites()).toBe(false);
      keys.clear((item) => item.key === 'c0');
      expect(keys.pending).toBe(3);
      for (let i = 4; i < 5; i++) keys.push(`c${i}`, { key: `c${i}`, waits: false });
      expect(keys.isSaturatedForPrerequisites()).toBe(false);
      // The minute passes: the three run (and wait) again; counted while they run.
      vi.advanceTimersByTime(60_000);
      expect(keys.pending).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });
});
