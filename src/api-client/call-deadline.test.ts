import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallDeadline, DeadlineExceeded } from './call-deadline.js';

describe('CallDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when its time passes, then its signal aborts with DeadlineExceeded naming the deadline', () => {
    const deadline = new CallDeadline(1_000);
    vi.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(DeadlineExceeded);
    expect((deadline.signal.reason as DeadlineExceeded).deadlineMs).toBe(1_000);
    expect(DeadlineExceeded.REASON).toBe('CALL_DEADLINE_EXCEEDED');
  });

  it('when the caller aborts first, then the signal aborts with the caller’s reason and the deadline has not expired', () => {
    const caller = new AbortController();
    const deadline = new CallDeadline(1_000, caller.signal);
    caller.abort(new Error('shutting down'));
    expect(deadline.signal.reason).toEqual(new Error('shutting down'));
    expect(deadline.expired).toBe(false);
    vi.advanceTimersByTime(5_000);
    expect(deadline.expired).toBe(false);
  });

  it('when the caller’s signal is already aborted, then the attempt’s is too', () => {
    const deadline = new CallDeadline(1_000, AbortSignal.abort(new Error('gone')));
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(false);
  });

  it('when it is cleared, then no timer is left and a later abort of the caller does nothing to it', () => {
    const caller = new AbortController();
    const deadline = new CallDeadline(1_000, caller.signal);
    deadline.clear();
    expect(vi.getTimerCount()).toBe(0);
    caller.abort();
    vi.advanceTimersByTime(5_000);
    expect(deadline.signal.aborted).toBe(false);
  });

  it('when it aborts, then its listeners are told once, in order, and one removed or added late is not', () => {
    const caller = new AbortController();
    const deadline = new CallDeadline(1_000, caller.signal);
    const told: string[] = [];
    const removed = () => told.push('removed');
    deadline.addEventListener('abort', () => told.push('function'));
    deadline.addEventListener('abort', { handleEvent: () => told.push('object') });
    deadline.addEventListener('abort', removed);
    deadline.removeEventListener('abort', removed);
    caller.abort(new Error('released'));
    caller.abort(new Error('again'));
    vi.advanceTimersByTime(5_000);
    deadline.addEventListener('abort', () => told.push('late'));
    expect(told).toEqual(['function', 'object']);
    expect(deadline.aborted).toBe(true);
    expect(deadline.reason).toEqual(new Error('released'));
  });

  it('when its signal is asked for after it aborted, then the signal is aborted with its reason', () => {
    const deadline = new CallDeadline(1_000);
    vi.advanceTimersByTime(1_000);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(DeadlineExceeded);
  });

  it('when it is cleared, then no listener of it is told anything', () => {
    const caller = new AbortController();
    const deadline = new CallDeadline(1_000, caller.signal);
    const listener = vi.fn();
    deadline.addEventListener('abort', listener);
    deadline.clear();
    caller.abort();
    vi.advanceTimersByTime(5_000);
    expect(listener).not.toHaveBeenCalled();
    expect(deadline.aborted).toBe(false);
  });

  it.each([
    ['far forward', 365 * 24 * 3_600_000],
    ['far back', -365 * 24 * 3_600_000],
  ])(
    'when the wall clock moves %s, then the deadline passes after its own time all the same',
    (_, jump) => {
      const deadline = new CallDeadline(1_000);
      vi.advanceTimersByTime(400);
      vi.setSystemTime(Date.now() + jump);
      vi.advanceTimersByTime(599);
      expect(deadline.signal.aborted).toBe(false);
      vi.advanceTimersByTime(1);
      expect(deadline.expired).toBe(true);
    },
  );
});
