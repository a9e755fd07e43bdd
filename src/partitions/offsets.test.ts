import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartitionOffsets } from './offsets.js';

function tracked(...offsets: string[]): PartitionOffsets {
  const partition = new PartitionOffsets();
  for (const offset of offsets) partition.receive(offset, 'k', () => true);
  return partition;
}

describe('PartitionOffsets', () => {
  it('when nothing is tracked, then nothing is committable', () => {
    expect(new PartitionOffsets().committable()).toBeUndefined();
  });

  it('when offsets are tracked but none finished, then nothing is committable', () => {
    const partition = tracked('5', '6');
    expect(partition.committable()).toBeUndefined();
    expect(partition.inFlight).toBe(2);
  });

  it('when all finish, then the committable offset is the highest + 1', () => {
    const partition = tracked('5', '6', '7');
    for (const offset of ['7', '5', '6']) partition.finish(offset);
    expect(partition.committable()).toBe('8');
    expect(partition.inFlight).toBe(0);
  });

  it('when a later offset finishes before an earlier one, then the commit waits at the earlier one', () => {
    const partition = tracked('5', '6', '7');
    partition.finish('5');
    partition.finish('7');
    expect(partition.committable()).toBe('6');
    partition.finish('6');
    expect(partition.committable()).toBe('8');
  });

  it('when only the first offset is unfinished, then nothing is committable yet', () => {
    const partition = tracked('5', '6');
    partition.finish('6');
    expect(partition.committable()).toBeUndefined();
  });

  it('when offsets have gaps, then the commit skips the gaps', () => {
    const partition = tracked('10', '13', '20');
    partition.finish('10');
    expect(partition.committable()).toBe('13');
    partition.finish('20');
    partition.finish('13');
    expect(partition.committable()).toBe('21');
  });

  it('when the committable offset was marked committed, then nothing is committable until more finishes', () => {
    const partition = tracked('1', '2');
    partition.finish('1');
    partition.markCommitted('2');
    expect(partition.committable()).toBeUndefined();
    partition.finish('2');
    expect(partition.committable()).toBe('3');
  });

  it('when an older commit is marked after a newer one, then the newer one stands', () => {
    const partition = tracked('1', '2', '3');
    partition.finish('1');
    partition.finish('2');
    partition.markCommitted('3');
    partition.markCommitted('2');
    expect(partition.committable()).toBeUndefined();
  });

  it('handles offsets beyond 2^53 exactly', () => {
    const partition = tracked('9007199254740993', '9007199254740995');
    partition.finish('9007199254740993');
    partition.finish('9007199254740995');
    expect(partition.committable()).toBe('9007199254740996');
  });

  it('when an offset not above the highest received arrives, then it is skipped as a redelivery', () => {
    const partition = tracked('5', '6');
    expect(partition.receive('6', 'k', () => true)).toBe('skip');
    expect(partition.receive('4', 'k', () => true)).toBe('skip');
    expect(partition.inFlight).toBe(2);
  });

  it('when a record comes again from a rebalance or a seek, it is at or above the last commit; one below what Kafka committed is of another log, and nothing is taken', () => {
    const partition = tracked('5', '6');
    partition.finish('5');
    partition.markCommitted('6');
    expect(partition.receive('6', 'k', () => true)).toBe('skip');
    expect(partition.receive('5', 'k', () => true)).toBe('gone-back');
    expect(partition.inFlight).toBe(1);
  });

  it('when an unknown or already finished offset is finished, then it is ignored', () => {
    const partition = tracked('5');
    expect(partition.finish('9')).toBe(false);
    expect(partition.finish('5')).toBe(true);
    expect(partition.finish('5')).toBe(false);
    expect(partition.inFlight).toBe(0);
  });

  it('never commits past the lowest unfinished offset and commits max + 1 once all finish', () => {
    const arbScenario = fc.record({
      base: fc.bigInt({ min: 0n, max: 2n ** 63n }),
      gaps: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 40 }),
      // Each step tracks the next offset (null) or finishes the unfinished offset at that index.
      steps: fc.array(fc.option(fc.nat(), { nil: null }), { maxLength: 80 }),
      finishOrder: fc.array(fc.nat(), { maxLength: 40 }),
    });
    const numRuns = 100;
    let committingRuns = 0;
    fc.assert(
      fc.property(arbScenario, ({ base, gaps, steps, finishOrder }) => {
        let last = base;
        const offsets = gaps.map((gap) => {
          last += BigInt(gap);
          return last;
        });
        const partition = new PartitionOffsets();
        const unfinished: bigint[] = [];
        let next = 0;
        let committedBehind = false;
        const check = () => {
          const committable = partition.committable();
          const lowest = unfinished[0];
          if (committable !== undefined && lowest !== undefined) {
            expect(BigInt(committable)).toBeLessThanOrEqual(lowest);
            committedBehind = true;
          }
          expect(partition.inFlight).toBe(unfinished.length);
        };
        const finishAt = (pick: number) => {
          const [offset] = unfinished.splice(pick % unfinished.length, 1);
          expect(partition.finish(String(offset))).toBe(true);
        };
        for (const step of [...steps, ...offsets.map(() => null)]) {
          if (step === null && next < offsets.length) {
            const offset = offsets[next++] as bigint;
            partition.receive(offset.toString(), 'k', () => true);
            unfinished.push(offset);
          } else if (step !== null && unfinished.length > 0) {
            finishAt(step);
          }
          check();
        }
        // Then in any order, and the rest from the lowest, checked after each.
        for (const pick of [...finishOrder, ...unfinished.map(() => 0)]) {
          if (unfinished.length === 0) break;
          finishAt(pick);
          check();
        }
        expect(partition.committable()).toBe(String((offsets.at(-1) as bigint) + 1n));
        if (committedBehind) committingRuns++;
      }),
      { numRuns },
    );
    // Runs where an offset could be committed while a later one was still unfinished.
    expect(committingRuns).toBeGreaterThan(numRuns / 10);
  });
});
