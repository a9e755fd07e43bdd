export type { CarefulVerdict, GuardedRecord } from './crash-guard.js';
export { type FetchPlan, fetchPlan, type Holds } from './fetch-plan.js';
export { LedgerUpkeep, sweepIntervalMs } from './ledger-upkeep.js';
export { PartitionOffsets } from './offsets.js';
export * from './partition-machine.js';
export { PartitionTask } from './partition-task.js';
export { Partitions, type PartitionsOptions } from './partitions.js';
