export * from './admission.js';
export * from './entry.js';
export { EntryStore, type Eviction } from './entry-store.js';
export { EvictionLog } from './eviction-log.js';
export { canonicalJson, commandFingerprint } from './fingerprint.js';
export { Ledger, type StoredEntry, storedEntry, type Upkeep, writtenAt } from './ledger.js';
export { type LedgerFact, LedgerReader } from './ledger-reader.js';
export * from './ledger-record.js';
