/**
 * End-to-end helpers against the real broker: topics of one's own, commands produced as other
 * services would (JSON, key = bizId), an in-process Bridge wired to a simulator, and a
 * read_committed consumer of the events and dead-letter topics that decodes CloudEvents.
 */
export { BridgeProcess } from './bridge-process.js';
export { CommandSender } from './command-sender.js';
export {
  type CollectedDeadLetter,
  EventCollector,
  type ReceivedEvent,
} from './event-collector.js';
export { type InProcessBridge, startBridge, testSettings } from './in-process-bridge.js';
export { keyOnPartition, murmur2Partition } from './partitions.js';
export { commands, PERSON } from './sample-commands.js';
export { DEMO_CREDENTIALS } from './simulator-credentials.js';
export { testLogger } from './test-logger.js';
export { createTopics, TEST_PARTITIONS, uniquePrefix, uniqueTopics } from './topics.js';
