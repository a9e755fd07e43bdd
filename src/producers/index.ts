export * from './cloud-events.js';
export {
  CommandPublisher,
  type CommandSource,
  type PublisherOptions,
  type WriteGate,
} from './command-publisher.js';
export * from './dead-letter.js';
export * from './forwarded-copy.js';
export { Outbox, type OutboxOptions, type OutboxSink, type WriteOwner } from './outbox.js';
