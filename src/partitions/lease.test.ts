import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEASE_MS as BRIDGE_LEASE_MS, longestRetryWaitMs, OUTBOX_RETRY } from '../kafka/index.js';
import {
  holds,
  holdsFor,
  Lease,
  type LeaseEvent,
  type LeaseState,
  NO_LEASE,
  startedMarginMs,
  transition,
} from './lease.js';

const LEASE_MS = 6_000;

function run(events: readonly LeaseEvent[], from: LeaseState = NO_LEASE) {
  let state = from;
  const decisions: string[] = [];
  for (const event of events) {
    const next = transition(state, event, LEASE_MS);
    state = next.state;
    decisions.push(...next.decisions.map((d) => ('reason' in d ? `${d.do}:${d.reason}` : d.do)));
  }
  return { state, decisions };
}

describe('the lease on the partitions', () => {
  it('when the member has not joined yet, then it holds nothing', () => {
    expect(holds(NO_LEASE, 0, LEASE_MS)).toBe(false);
  });

  it('when the coordinator answered, then the lease holds until leaseMs after the answer, not at it', () => {
    const { state, decisions } = run([{ type: 'answered', at: 1_000 }]);
    expect(decisions).toEqual(['due-at']);
    expect(holds(state, 1_000 + LEASE_MS - 1, LEASE_MS)).toBe(true);
    expect(holds(state, 1_000 + LEASE_MS, LEASE_MS)).toBe(false);
  });

  it("the outbox's producers give a write up within the started margin of the bridge's lease, with a second to spare for the request itself", () => {
    expect(longestRetryWaitMs(OUTBOX_RETRY) + 1_000).toBeLessThan(startedMarginMs(BRIDGE_LEASE_MS));
  });

  it('when asked whether it holds for a margin, then only while more than the margin is left before its end; never once lost or before the first answer', () => {
    const { state } = run([{ type: 'answered', at: 1_000 }]);
    const margin = startedMarginMs(LEASE_MS);
    expect(margin).toBe(3_000);
    expect(holdsFor(state, 1_000 + LEASE_MS - margin - 1, LEASE_MS, margin)).toBe(true);
    expect(holdsFor(state, 1_000 + LEASE_MS - margin, LEASE_MS, margin)).toBe(false);
    expect(holds(state, 1_000 + LEASE_MS - margin, LEASE_MS)).toBe(true);
    expect(holdsFor(NO_LEASE, 0, LEASE_MS, 0)).toBe(false);
    const lost = run([{ type: 'crashed' }], state).state;
    expect(holdsFor(lost, 1_001, LEASE_MS, 0)).toBe(false);
  });

  it('for any answer and any time, holding for a margin means still holding once that margin has passed without an answer', () => {
    fc.assert(
      fc.property(
        fc.nat(100_000),
        fc.nat(20_000),
        fc.nat(LEASE_MS),
        (answeredAt, later, margin) => {
          const lease = new Lease(LEASE_MS);
          lease.step({ type: 'answered', at: answeredAt });
          const now = answeredAt + later;
          if (lease.holdsFor(margin, now)) expect(lease.holds(now + margin)).toBe(true);
          expect(lease.holdsFor(margin, now)).toBe(lease.holds(now) && later + margin < LEASE_MS);
        },
      ),
    );
  });

  it('when heartbeats keep coming, then nothing is lost and each pushes the end further', () => {
    const { state, decisions } = run([
      { type: 'answered', at: 0 },
      { type: 'answered', at: 1_000 },
      { type: 'due', at: LEASE_MS },
      { type: 'answered', at: 2_000 },
    ]);
    expect(decisions).toEqual(['due-at', 'due-at', 'due-at']);
    expect(holds(state, 2_000 + LEASE_MS - 1, LEASE_MS)).toBe(true);
  });

  it('when no answer comes within leaseMs, then at the due time every partition is given up', () => {
    const { state, decisions } = run([
      { type: 'answered', at: 0 },
      { type: 'due', at: LEASE_MS },
    ]);
    expect(decisions).toEqual(['due-at', 'lose-all:expired']);
    expect(state.lost).toBe(true);
    expect(holds(state, LEASE_MS, LEASE_MS)).toBe(false);
  });

  it('when the coordinator answers again after the loss, then the partitions are regained, to be acquired afresh', () => {
    const { state, decisions } = run([
      { type: 'answered', at: 0 },
      { type: 'due', at: LEASE_MS },
      { type: 'answered', at: 8_000 },
    ]);
    expect(decisions).toEqual(['due-at', 'lose-all:expired', 'regain', 'due-at']);
    expect(holds(state, 8_000, LEASE_MS)).toBe(true);
  });

  it('when the process was frozen past the lease and an answer comes before the timer, then what was held is given up first, then regained', () => {
    const { decisions } = run([
      { type: 'answered', at: 0 },
      { type: 'answered', at: 15_000 },
    ]);
    expect(decisions).toEqual(['due-at', 'lose-all:expired', 'regain', 'due-at']);
  });

  it('when the consumer crashes, then every partition is given up at once, once, and regained at the next join', () => {
    const { decisions } = run([
      { type: 'answered', at: 0 },
      { type: 'crashed' },
      { type: 'crashed' },
      { type: 'due', at: LEASE_MS },
      { type: 'answered', at: 500 },
    ]);
    expect(decisions).toEqual(['due-at', 'lose-all:crashed', 'regain', 'due-at']);
  });

  it('for any events in time order: the partitions are held only within leaseMs of the last answer and not after a crash, and never across a gap of leaseMs without an answer', () => {
    const event = fc.oneof(
      fc.record({
        type: fc.constant('answered' as const),
        gap: fc.integer({ min: 0, max: 9_000 }),
      }),
      fc.record({ type: fc.constant('due' as const), gap: fc.integer({ min: 0, max: 9_000 }) }),
      fc.record({ type: fc.constant('crashed' as const), gap: fc.constant(0) }),
    );
    let gapsCrossed = 0;
    let lossesSeen = 0;
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 30 }), (drawn) => {
        let state = NO_LEASE;
        let now = 0;
        let lastAnswer: number | undefined;
        let crashedSince = false;
        // What the driver holds: taken at the first answer or a regain, dropped at a loss.
        let owning = false;
        for (const { type, gap } of drawn) {
          now += gap;
          const e: LeaseEvent = type === 'crashed' ? { type } : { type, at: now };
          const gapCrossed =
            type === 'answered' &&
            owning &&
            lastAnswer !== undefined &&
            now - lastAnswer >= LEASE_MS;
          const { state: next, decisions } = transition(state, e, LEASE_MS);
          if (gapCrossed) {
            gapsCrossed++;
            expect(decisions[0]).toEqual({ do: 'lose-all', reason: 'expired' });
          }
          for (const decision of decisions) {
            if (decision.do === 'lose-all') {
              lossesSeen++;
              expect(owning).toBe(true);
              owning = false;
            }
            if (decision.do === 'regain') owning = true;
          }
          if (type === 'answered') {
            if (lastAnswer === undefined) owning = true;
            lastAnswer = now;
            crashedSince = false;
          }
          if (type === 'crashed') crashedSince = true;
          state = next;
          if (holds(state, now, LEASE_MS)) {
            expect(owning).toBe(true);
            expect(crashedSince).toBe(false);
            expect(now - (lastAnswer as number)).toBeLessThan(LEASE_MS);
          }
        }
      }),
      { numRuns: 300 },
    );
    // The conditions checked came up: answers after a gap, and losses.
    expect(gapsCrossed).toBeGreaterThan(30);
    expect(lossesSeen).toBeGreaterThan(100);
  });
});
