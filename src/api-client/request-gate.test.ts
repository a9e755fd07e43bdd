import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestGate } from './request-gate.js';

/** Lets settled promises run their callbacks. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('RequestGate', () => {
  it('when fewer than the limit are held, then a slot is had at once', async () => {
    const gate = new RequestGate(2);
    await gate.acquire();
    await gate.acquire();
    expect(gate.active).toBe(2);
    expect(gate.waiting).toBe(0);
  });

  it('when the limit is held, then later callers get slots in call order as they are given back', async () => {
    const gate = new RequestGate(1);
    const first = await gate.acquire();
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      gate.acquire().then((release) => {
        order.push(n);
        return release;
      }),
    );
    await flush();
    expect(order).toEqual([]);
    expect(gate.waiting).toBe(3);
    first();
    const second = await waiters[0];
    expect(order).toEqual([1]);
    second?.();
    (await waiters[1])?.();
    (await waiters[2])?.();
    expect(order).toEqual([1, 2, 3]);
    expect(gate.active).toBe(0);
  });

  it('when a slot is given back twice, then it counts once', async () => {
    const gate = new RequestGate(1);
    const release = await gate.acquire();
    const next = gate.acquire();
    release();
    release();
    await next;
    expect(gate.active).toBe(1);
    expect(gate.waiting).toBe(0);
  });

  it('when a waiter aborts, then it leaves the queue with the reason, holds nothing, and the next one goes', async () => {
    const gate = new RequestGate(1);
    const held = await gate.acquire();
    const controller = new AbortController();
    const aborted = gate.acquire(controller.signal);
    const after = gate.acquire();
    controller.abort(new Error('deadline'));
    await expect(aborted).rejects.toThrow('deadline');
    expect(gate.waiting).toBe(1);
    held();
    (await after)();
    expect(gate.active).toBe(0);
    expect(gate.waiting).toBe(0);
  });

  it('when the signal is already aborted, then it rejects without queueing', async () => {
    const gate = new RequestGate(1);
    await gate.acquire();
    await expect(gate.acquire(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(gate.waiting).toBe(0);
  });

  it('when a waiter got its slot, then a later abort of its signal leaves the slot to its release', async () => {
    const gate = new RequestGate(1);
    const first = await gate.acquire();
    const controller = new AbortController();
    const second = gate.acquire(controller.signal);
    first();
    const release = await second;
    controller.abort();
    expect(gate.active).toBe(1);
    release();
    expect(gate.active).toBe(0);
  });

  it('when a limit is not a positive integer, then it is refused', () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      expect(() => new RequestGate(limit)).toThrow(RangeError);
    }
  });

  it('whatever the mix of acquires, aborts and releases: never more than the limit held, FIFO among those granted, nothing left at the end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.constantFrom('acquire', 'abort', 'release'), { maxLength: 40 }),
        async (limit, steps) => {
          const gate = new RequestGate(limit);
          const queued: Array<{ n: number; controller: AbortController }> = [];
          const held: Array<() => void> = [];
          const granted: number[] = [];
          let n = 0;
          for (const step of steps) {
            if (step === 'acquire') {
              const controller = new AbortController();
              const id = n++;
              queued.push({ n: id, controller });
              gate.acquire(controller.signal).then(
                (release) => {
                  granted.push(id);
                  held.push(release);
                },
                () => {},
              );
            } else if (step === 'abort') {
              queued.shift()?.controller.abort();
            } else {
              held.shift()?.();
            }
            await flush();
            expect(gate.active).toBeLessThanOrEqual(limit);
            expect(held.length).toBe(gate.active);
          }
          expect([...granted].sort((a, b) => a - b)).toEqual(granted);
          for (const { controller } of queued) controller.abort();
          await flush();
          for (const release of held.splice(0)) release();
          await flush();
          for (const release of held.splice(0)) release();
          expect(gate.waiting).toBe(0);
          expect(gate.active).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });
});
