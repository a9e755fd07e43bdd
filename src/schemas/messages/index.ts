export * from './commands.js';
export * from './contract-version.js';
export * from './events.js';
export * from './ledger.js';
export * from './topic-settings.js';
export * from './topics.js';
