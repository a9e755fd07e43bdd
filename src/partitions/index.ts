export { Lease, type LoseReason } from './lease.js';
export { marginMs, sweepIntervalMs, vouchedSince } from './ledger-upkeep.js';
export type { Fate } from './offsets.js';
export * from './partition-machine.js';
export { PartitionTask } from './partition-task.js';
export { Partitions, type PartitionsOptions } from './partitions.js';
