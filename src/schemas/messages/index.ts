export * from './commands.js';
export * from './events.js';
export * from './ledger.js';
export * from './topics.js';
