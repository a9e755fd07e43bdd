export * from './entry.js';
export { Ledger } from './ledger.js';
export * from './ledger-record.js';
export { PartitionRestore, type RestoreState } from './partition-restore.js';
