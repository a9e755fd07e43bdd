import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitState,
} from './circuit-breaker.js';

function breaker(overrides: Partial<CircuitBreakerOptions> = {}) {
  const clock = { ms: 0 };
  const circuit = new CircuitBreaker({
    failureThreshold: 3,
    openDurationMs: 1_000,
    maxOpenDurationMs: 5_000,
    halfOpenProbes: 1,
    now: () => clock.ms,
    ...overrides,
  });
  const fail = (times: number) => {
    for (let i = 0; i < times; i++) circuit.recordFailure();
  };
  return { circuit, clock, fail };
}

describe('CircuitBreaker', () => {
  it('starts closed and lets calls pass', () => {
    const { circuit } = breaker();
    expect(circuit.state).toBe('closed');
    expect(circuit.canPass()).toBe(true);
    expect(circuit.remainingOpenMs()).toBe(0);
  });

  it('when failures reach the threshold in a row, then it opens and refuses calls', () => {
    const { circuit, fail } = breaker();
    fail(2);
    expect(circuit.state).toBe('closed');
    fail(1);
    expect(circuit.state).toBe('open');
    expect(circuit.canPass()).toBe(false);
  });

  it('when a success interrupts the failures, then the count starts over', () => {
    const { circuit, fail } = breaker();
    fail(2);
    circuit.recordSuccess();
    fail(2);
    expect(circuit.state).toBe('closed');
  });

  it('when the open duration has passed, then it turns half-open and lets the probes through', () => {
    const { circuit, clock, fail } = breaker({ halfOpenProbes: 2 });
    fail(3);
    clock.ms = 400;
    expect(circuit.remainingOpenMs()).toBe(600);
    clock.ms = 1_000;
    expect(circuit.state).toBe('open');
    expect(circuit.refresh()).toBe('half-open');
    expect(circuit.state).toBe('half-open');
    expect([circuit.canPass(), circuit.canPass(), circuit.canPass()]).toEqual([true, true, false]);
  });

  it('reading the state changes nothing: the open period ends on refresh() or canPass()', () => {
    const { circuit, clock, fail } = breaker({});
    fail(3);
    clock.ms = 5_000;
    expect([circuit.state, circuit.state]).toEqual(['open', 'open']);
    expect(circuit.canPass()).toBe(true);
    expect(circuit.state).toBe('half-open');
  });

  it('when a probe succeeds, then it closes and the next opening lasts the initial duration', () => {
    const { circuit, clock, fail } = breaker();
    fail(3);
    clock.ms = 1_000;
    circuit.canPass();
    circuit.recordFailure();
    clock.ms = 3_000;
    circuit.canPass();
    circuit.recordSuccess();
    expect(circuit.state).toBe('closed');
    fail(3);
    expect(circuit.remainingOpenMs()).toBe(1_000);
  });

  it('when a probe fails, then it reopens for twice as long, up to maxOpenDurationMs', () => {
    const { circuit, clock, fail } = breaker();
    fail(3);
    const durations: number[] = [];
    for (let i = 0; i < 5; i++) {
      clock.ms += circuit.remainingOpenMs();
      expect(circuit.canPass()).toBe(true);
      circuit.recordFailure();
      expect(circuit.state).toBe('open');
      durations.push(circuit.remainingOpenMs());
    }
    expect(durations).toEqual([2_000, 4_000, 5_000, 5_000, 5_000]);
  });

  it('when results arrive while open, then they are ignored', () => {
    const { circuit, clock, fail } = breaker();
    fail(3);
    clock.ms = 500;
    circuit.recordSuccess();
    circuit.recordFailure();
    expect(circuit.state).toBe('open');
    expect(circuit.remainingOpenMs()).toBe(500);
  });

  it('when half-open probes never report back, then it probes again after another open period', () => {
    const { circuit, clock, fail } = breaker();
    fail(3);
    clock.ms = 1_000;
    expect(circuit.canPass()).toBe(true);
    clock.ms = 1_999;
    expect(circuit.canPass()).toBe(false);
    clock.ms = 2_000;
    expect(circuit.canPass()).toBe(true);
    expect(circuit.state).toBe('half-open');
  });

  it('tells listeners about each change until they unsubscribe', () => {
    const { circuit, clock, fail } = breaker();
    const changes: string[] = [];
    const unsubscribe = circuit.onStateChange((state, previous) =>
      changes.push(`${previous}->${state}`),
    );
    fail(3);
    clock.ms = 1_000;
    circuit.canPass();
    circuit.recordSuccess();
    unsubscribe();
    fail(3);
    expect(changes).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
  });

  it.each([
    { failureThreshold: 0 },
    { openDurationMs: -1 },
    { maxOpenDurationMs: 10 },
    { halfOpenProbes: 0 },
  ])('rejects invalid options %o with a RangeError', (overrides) => {
    expect(() => breaker(overrides)).toThrow(RangeError);
  });

  it('only ever moves along the allowed edges, refuses calls while open and never waits past the maximum', () => {
    const allowed = new Set([
      'closed->open',
      'open->half-open',
      'half-open->closed',
      'half-open->open',
    ]);
    // Failures weigh most and a run has ten events or more: with each event as likely and runs
    // of any length, three failures in a row (the circuit open) came up in one run in ten.
    const arbEvent = fc.oneof(
      fc.constant('success' as const),
      { weight: 3, arbitrary: fc.constant('failure' as const) },
      fc.constant('call' as const),
      fc.integer({ min: 1, max: 3_000 }),
    );
    const numRuns = 100;
    let openRuns = 0;
    fc.assert(
      fc.property(fc.array(arbEvent, { minLength: 10, maxLength: 100 }), (events) => {
        const { circuit, clock } = breaker();
        let last: CircuitState = 'closed';
        let wasOpen = false;
        circuit.onStateChange((state, previous) => {
          expect(previous).toBe(last);
          expect(allowed.has(`${previous}->${state}`)).toBe(true);
          last = state;
        });
        for (const event of events) {
          if (event === 'success') circuit.recordSuccess();
          else if (event === 'failure') circuit.recordFailure();
          else if (event === 'call') circuit.canPass();
          else clock.ms += event;
          expect(circuit.remainingOpenMs()).toBeLessThanOrEqual(5_000);
          if (circuit.state === 'open') {
            expect(circuit.canPass()).toBe(false);
            wasOpen = true;
          }
        }
        if (wasOpen) openRuns++;
      }),
      { numRuns },
    );
    expect(openRuns).toBeGreaterThan(numRuns / 10);
  });

  describe('on the process clock', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it.each([
      ['forward a day', 86_400_000],
      ['back a day', -86_400_000],
    ])(
      'when the wall clock steps %s while open, then the open period still lasts exactly as long',
      (_what, stepMs) => {
        vi.useFakeTimers({ toFake: ['Date', 'performance'] });
        const circuit = new CircuitBreaker({
          failureThreshold: 1,
          openDurationMs: 1_000,
          maxOpenDurationMs: 5_000,
          halfOpenProbes: 1,
        });
        circuit.recordFailure('auth');
        vi.setSystemTime(Date.now() + stepMs);
        expect(circuit.refresh()).toBe('open');
        vi.advanceTimersByTime(999);
        expect(circuit.refresh()).toBe('open');
        vi.advanceTimersByTime(1);
        expect(circuit.refresh()).toBe('half-open');
      },
    );
  });

  it('when it opens, then its listeners are told the cause of the failure that opened it', () => {
    const { circuit } = breaker({ failureThreshold: 2 });
    const changes: [CircuitState, string | undefined][] = [];
    circuit.onStateChange((state, _previous, cause) => changes.push([state, cause]));
    circuit.recordFailure('unreachable');
    circuit.recordFailure('auth');
    expect(changes).toEqual([['open', 'auth']]);
  });

  describe('waiting for a pass', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    /** An open circuit on the faked process clock, with `count` waiters recording their wake-ups. */
    function waiting(count: number) {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const circuit = new CircuitBreaker({
        failureThreshold: 1,
        openDurationMs: 1_000,
        maxOpenDurationMs: 5_000,
        halfOpenProbes: 1,
      });
      circuit.recordFailure('unreachable');
      const woken: number[] = [];
      const stops = Array.from({ length: count }, (_, i) =>
        circuit.whenMayPass(() => woken.push(i)),
      );
      return { circuit, woken, stops };
    }

    it('when it half-opens, then only the longest waiting is woken, to probe; when the probe closes it, every other in order', async () => {
      const { circuit, woken } = waiting(4);
      await vi.advanceTimersByTimeAsync(999);
      expect(woken).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect([circuit.state, woken]).toEqual(['half-open', [0]]);
      const probe = circuit.tryPass();
      circuit.recordSuccess();
      probe?.end();
      await vi.advanceTimersByTimeAsync(0);
      expect(woken).toEqual([0, 1, 2, 3]);
    });

    it('when a probe is out, then no other waiter is woken and no call passes however long it takes; when it fails, the next is woken after the doubled open period', async () => {
      const { circuit, woken } = waiting(3);
      await vi.advanceTimersByTimeAsync(1_000);
      const probe = circuit.tryPass();
      await vi.advanceTimersByTimeAsync(60_000);
      expect([woken, circuit.tryPass()]).toEqual([[0], undefined]);
      circuit.recordFailure('unreachable');
      probe?.end();
      await vi.advanceTimersByTimeAsync(1_999);
      expect(woken).toEqual([0]);
      await vi.advanceTimersByTimeAsync(1);
      expect(woken).toEqual([0, 1]);
    });

    it('when a probe ends without a verdict, then the next waiter is woken to probe again after another open period', async () => {
      const { circuit, woken } = waiting(3);
      await vi.advanceTimersByTimeAsync(1_000);
      circuit.tryPass()?.end();
      await vi.advanceTimersByTimeAsync(999);
      expect(woken).toEqual([0]);
      await vi.advanceTimersByTimeAsync(1);
      expect([circuit.state, woken]).toEqual(['half-open', [0, 1]]);
    });

    it('when a waiter stops waiting, even once released, then it is never woken', async () => {
      const { circuit, woken, stops } = waiting(3);
      stops[1]?.();
      await vi.advanceTimersByTimeAsync(1_000);
      circuit.tryPass();
      circuit.recordSuccess();
      stops[2]?.();
      await vi.advanceTimersByTimeAsync(0);
      expect(woken).toEqual([0]);
    });

    it('when the circuit is closed, then a waiter is woken at once, but not synchronously', async () => {
      const { circuit } = breaker();
      const resume = vi.fn();
      circuit.whenMayPass(resume);
      expect(resume).not.toHaveBeenCalled();
      await Promise.resolve();
      expect(resume).toHaveBeenCalledOnce();
    });

    it('when nobody waits, then it keeps no timer while open', () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const { circuit, fail } = breaker({ now: undefined });
      fail(3);
      expect([circuit.state, vi.getTimerCount()]).toEqual(['open', 0]);
    });
  });
});
