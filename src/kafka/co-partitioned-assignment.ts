/**
 * Which member gets which partition number. A partition number stands for that partition of
 * every subscribed topic, so one member holds all of a bizId's commands and its ledger records.
 */

export interface Subscriber {
  readonly memberId: string;
  /** Partition numbers the member held before this rebalance. */
  readonly owned: readonly number[];
}

/**
 * Balanced (member counts differ by at most one) and sticky: a member keeps what it held, up to
 * its share, so a rebalance moves only the partitions it must and each move costs a handover.
 * Deterministic for a given input, since only the group leader runs it.
 */
export function assignPartitionNumbers(
  subscribers: readonly Subscriber[],
  partitionCount: number,
): Map<string, number[]> {
  const result = new Map<string, number[]>(subscribers.map((s) => [s.memberId, []]));
  if (subscribers.length === 0) return result;
  const shares = sharesOf(subscribers, partitionCount);
  const taken = new Set<number>();
  for (const { memberId, owned } of subscribers) {
    const mine = result.get(memberId) ?? [];
    for (const partition of [...owned].sort((a, b) => a - b)) {
      if (mine.length >= (shares.get(memberId) ?? 0)) break;
      if (partition < partitionCount && partition >= 0 && !taken.has(partition)) {
        taken.add(partition);
        mine.push(partition);
      }
    }
  }
  // The shares add up to partitionCount, so there is one free slot per partition not kept.
  const freeSlots = [...subscribers].sort(byMemberId).flatMap(({ memberId }) => {
    const free = (shares.get(memberId) ?? 0) - (result.get(memberId)?.length ?? 0);
    return Array.from({ length: free }, () => memberId);
  });
  for (let partition = 0; partition < partitionCount; partition++) {
    if (!taken.has(partition)) result.get(freeSlots.shift() ?? '')?.push(partition);
  }
  for (const partitions of result.values()) partitions.sort((a, b) => a - b);
  return result;
}

/**
 * floor(P / M) each, and one more for the first P mod M members, preferring those that held the
 * most already so the extra partitions stay where they are.
 */
function sharesOf(subscribers: readonly Subscriber[], partitionCount: number): Map<string, number> {
  const base = Math.floor(partitionCount / subscribers.length);
  const extra = partitionCount % subscribers.length;
  const byOwned = [...subscribers].sort(
    (a, b) => b.owned.length - a.owned.length || byMemberId(a, b),
  );
  return new Map(byOwned.map((s, i) => [s.memberId, base + (i < extra ? 1 : 0)]));
}

function byMemberId(a: Subscriber, b: Subscriber): number {
  return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;
}
