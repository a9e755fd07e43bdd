export * from './entry.js';
export { Ledger } from './ledger.js';
export { type LedgerFact, LedgerReader } from './ledger-reader.js';
export * from './ledger-record.js';
