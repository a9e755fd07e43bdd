/**
 * `signing-bridge`: the SDK for services that send commands to the bridge and read its events.
 * See docs/sdk.md. The platform client alone is `signing-bridge/client`.
 */

export {
  CommandRefused,
  EventUndecodable,
  type InvalidField,
  KafkaWriteFailed,
  OutcomeWaitTimedOut,
  SigningBridgeError,
  SubscriberUnavailable,
} from '../errors.js';
export type { KafkajsClient } from '../kafka/index.js';
export {
  COMMAND_TYPES,
  COMMANDS,
  type Command,
  type CommandType,
  DEFAULT_TOPIC_PREFIX,
  EVENTS,
  type EventData,
  type EventType,
  isTerminal,
  type TopicNames,
  topicNames,
} from '../schemas/messages/index.js';
export {
  CommandProducer,
  type CommandProducerOptions,
  type SentCommand,
} from './command-producer.js';
export { COMMAND_MAX_BYTES, type CommandInput, type CommandToSend } from './commands.js';
export {
  type DeadLetter,
  decodeDeadLetter,
  type RecordAt,
  type ReplayMarker,
} from './dead-letters.js';
export { EventSubscriber, type EventSubscriberOptions } from './event-subscriber.js';
export { type BridgeEvent, type BridgeEventOf, decodeEvent, type KafkaRecord } from './events.js';
export type { BrokerSettings, KafkaTarget } from './kafka-target.js';
export {
  OUTCOME_LIMITS,
  type OutcomeLimits,
  type OutcomeOf,
  type WaitOptions,
} from './outcomes.js';
