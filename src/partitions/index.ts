export { type FetchPlan, fetchPlan, type Holds } from './fetch-plan.js';
export { Lease, Leases } from './lease.js';
export { LedgerUpkeep, sweepIntervalMs } from './ledger-upkeep.js';
export * from './partition-machine.js';
export { Partitions, type PartitionsOptions } from './partitions.js';
