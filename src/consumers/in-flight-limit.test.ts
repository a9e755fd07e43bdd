import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  floorOf,
  InFlightGovernor,
  type InFlightPolicy,
  LOOP_TIMER_MS,
  nextInFlightLimit,
} from './in-flight-limit.js';

const policy: InFlightPolicy = { ceiling: 512, targetDelayMs: 30 };
const busy = { delayMs: 80, saturated: true };
const calm = { delayMs: 11, saturated: true };

describe('nextInFlightLimit', () => {
  it('when the loop is slower than its target, then a quarter fewer commands run, never below the floor', () => {
    expect(nextInFlightLimit(512, policy, busy)).toBe(384);
    expect(nextInFlightLimit(40, policy, busy)).toBe(32);
    expect(nextInFlightLimit(32, policy, busy)).toBe(32);
  });

  it('at the target the limit holds; just over it, it falls; just over the floor, it stops at the floor', () => {
    expect(nextInFlightLimit(200, policy, { delayMs: 30, saturated: true })).toBe(200);
    expect(nextInFlightLimit(200, policy, { delayMs: 30.01, saturated: true })).toBe(150);
    expect(nextInFlightLimit(43, policy, { delayMs: 30.01, saturated: true })).toBe(32);
  });

  it('when the loop is calm and every slot is taken, then the limit climbs by a step towards MAX_IN_FLIGHT', () => {
    expect(nextInFlightLimit(128, policy, calm)).toBe(144);
    expect(nextInFlightLimit(510, policy, calm)).toBe(512);
  });

  it('when slots are free, then a calm loop does not raise the limit: nothing asks for more', () => {
    expect(nextInFlightLimit(128, policy, { delayMs: 11, saturated: false })).toBe(128);
  });

  it('when the delay is between half the target and the target, then the limit holds', () => {
    expect(nextInFlightLimit(200, policy, { delayMs: 20, saturated: true })).toBe(200);
  });

  it('when turned off (target 0), then the limit is MAX_IN_FLIGHT whatever the loop does', () => {
    const off = { ...policy, targetDelayMs: 0 };
    expect(nextInFlightLimit(64, off, busy)).toBe(512);
  });

  it('when MAX_IN_FLIGHT is below the floor, then the floor is MAX_IN_FLIGHT', () => {
    const small = { ceiling: 8, targetDelayMs: 25 };
    expect(floorOf(small)).toBe(8);
    expect(nextInFlightLimit(8, small, busy)).toBe(8);
  });

  it('whatever the loop does, the limit stays between the floor and MAX_IN_FLIGHT, and falls whenever the loop is over its target', () => {
    const numRuns = 100;
    const checked = { overTarget: 0, unsaturated: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: LOOP_TIMER_MS + 1, max: 1_000 }),
        fc.array(
          fc.record({
            delayMs: fc.double({ min: LOOP_TIMER_MS, max: 2_000, noNaN: true }),
            saturated: fc.boolean(),
          }),
          { maxLength: 200 },
        ),
        (ceiling, targetDelayMs, observations) => {
          const rule = { ceiling, targetDelayMs };
          let limit = ceiling;
          const held = { overTarget: false, unsaturated: false };
          for (const seen of observations) {
            const next = nextInFlightLimit(limit, rule, seen);
            expect(next).toBeGreaterThanOrEqual(floorOf(rule));
            expect(next).toBeLessThanOrEqual(ceiling);
            if (seen.delayMs > targetDelayMs) {
              expect(next).toBeLessThanOrEqual(limit);
              held.overTarget = true;
            }
            if (!seen.saturated) {
              expect(next).toBeLessThanOrEqual(Math.max(limit, floorOf(rule)));
              held.unsaturated = true;
            }
            limit = next;
          }
          if (held.overTarget) checked.overTarget++;
          if (held.unsaturated) checked.unsaturated++;
        },
      ),
      { numRuns },
    );
    expect(checked.overTarget).toBeGreaterThan(numRuns / 10);
    expect(checked.unsaturated).toBeGreaterThan(numRuns / 10);
  });
});

describe('InFlightGovernor', () => {
  it('when the event loop is blocked, then it lowers the scheduler’s limit; stopped, it changes nothing more', async () => {
    const target = {
      inFlightLimit: 512,
      saturated: true,
      limitInFlight(limit: number) {
        this.inFlightLimit = limit;
      },
    };
    const governor = new InFlightGovernor(policy, target);
    governor.start();
    // Block the loop well past the target several times, letting the governor's tick in between.
    while (target.inFlightLimit === 512) {
      const until = performance.now() + 60;
      while (performance.now() < until) {}
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    governor.stop();
    const lowered = target.inFlightLimit;
    expect(lowered).toBeLessThan(512);
    expect(lowered).toBeGreaterThanOrEqual(32);
  });
});
