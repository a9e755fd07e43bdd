import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignPartitionNumbers, type Subscriber } from './co-partitioned-assignment.js';

const member = (memberId: string, owned: number[] = []): Subscriber => ({ memberId, owned });

describe('assignPartitionNumbers', () => {
  it('when one member is alone, then it gets every partition number', () => {
    expect(assignPartitionNumbers([member('a')], 4)).toEqual(new Map([['a', [0, 1, 2, 3]]]));
  });

  it('when a member joins, then the others keep what they can and only the surplus moves', () => {
    const result = assignPartitionNumbers([member('a', [0, 1, 2, 3, 4, 5]), member('b')], 6);
    expect(result.get('a')).toEqual([0, 1, 2]);
    expect(result.get('b')).toEqual([3, 4, 5]);
  });

  it('when a member leaves, then its partitions go to the rest and nothing else moves', () => {
    const result = assignPartitionNumbers([member('a', [0, 1]), member('c', [4, 5])], 6);
    expect(result.get('a')).toEqual(expect.arrayContaining([0, 1]));
    expect(result.get('c')).toEqual(expect.arrayContaining([4, 5]));
    expect([...(result.get('a') ?? []), ...(result.get('c') ?? [])].sort()).toEqual([
      0, 1, 2, 3, 4, 5,
    ]);
  });

  it('when two members claim the same partition, then one keeps it', () => {
    const result = assignPartitionNumbers([member('a', [0]), member('b', [0])], 2);
    expect([...result.values()].flat().sort()).toEqual([0, 1]);
  });

  it('ignores claimed partitions that no longer exist', () => {
    expect(assignPartitionNumbers([member('a', [7, 9])], 2).get('a')).toEqual([0, 1]);
  });

  it('gives every partition to exactly one member, balanced within one, for any input', () => {
    const arbMembers = fc.uniqueArray(
      fc.record({
        memberId: fc.string({ minLength: 1, maxLength: 4 }),
        owned: fc.array(fc.nat(20)),
      }),
      { selector: (m) => m.memberId, minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(arbMembers, fc.nat(16), (members, count) => {
        const result = assignPartitionNumbers(members, count);
        const all = [...result.values()].flat().sort((a, b) => a - b);
        expect(all).toEqual([...Array(count).keys()]);
        const sizes = [...result.values()].map((p) => p.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        expect([...result.keys()].sort()).toEqual(members.map((m) => m.memberId).sort());
      }),
    );
  });

  it('moves nothing when the same members rebalance again', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(16), (n, count) => {
        const first = assignPartitionNumbers(
          Array.from({ length: n }, (_, i) => member(`m${i}`)),
          count,
        );
        const again = assignPartitionNumbers(
          [...first].map(([memberId, owned]) => member(memberId, owned)),
          count,
        );
        expect(again).toEqual(first);
      }),
    );
  });
});
