/** A lease that always holds (src/partitions/lease.ts), for tests of what runs under one. */
export const heldLease = { holds: () => true, holdsFor: () => true, leaseMs: 6_000 } as const;
