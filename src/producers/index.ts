export * from './cloud-events.js';
export * from './dead-letter.js';
export * from './excerpt.js';
export * from './failure-events.js';
export * from './forwarded-copy.js';
export { Outbox, type OutboxOptions, type OutboxSink } from './outbox.js';
