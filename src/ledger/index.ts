export * from './entry.js';
export { canonicalJson, commandFingerprint } from './fingerprint.js';
export { Ledger, type StoredEntry, storedEntry, type Upkeep, writtenAt } from './ledger.js';
export { type LedgerFact, LedgerReader } from './ledger-reader.js';
export * from './ledger-record.js';
