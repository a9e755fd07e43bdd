import { defaultBridgeSettings } from '../../consumers/settings.js';
import { DEFAULT_TOPIC_PREFIX } from '../../schemas/messages/topics.js';
import { DEFAULT_TOPIC_LAYOUT } from '../../topics/table.js';
import {
  brokers,
  flag,
  integer,
  milliseconds,
  oneOf,
  optionalInteger,
  optionalTopicName,
  text,
  topicPrefix,
} from '../parsers.js';
import type { Variable } from '../variable.js';

export const KAFKA = [
  {
    name: 'KAFKA_BROKERS',
    group: 'Kafka',
    schema: brokers,
    description: 'Bootstrap brokers, comma-separated host:port.',
  },
  {
    name: 'KAFKA_CLIENT_ID',
    group: 'Kafka',
    schema: text,
    default: 'signing-bridge',
    description: 'Kafka client id, shown in broker logs and quotas.',
  },
  {
    name: 'KAFKA_GROUP_ID',
    group: 'Kafka',
    schema: text,
    default: defaultBridgeSettings().groupId,
    description: 'Consumer group of the command topics; every instance of one bridge shares it.',
  },
  {
    name: 'DELIVERY_MODE',
    group: 'Kafka',
    schema: oneOf(['at-least-once', 'exactly-once']),
    default: defaultBridgeSettings().deliveryMode,
    description:
      'How events and ledger records are written. at-least-once: one produce request per broker; on one broker every command gets exactly one terminal event. exactly-once: one Kafka transaction per write, so also on a multi-broker cluster (docs/design.md, "Delivery guarantee").',
  },
] as const satisfies readonly Variable[];

/** Empty (the default) means the topic TOPIC_PREFIX names. */
const topicOverride = <N extends string>(name: N, what: string) =>
  ({
    name,
    group: 'Topics',
    schema: optionalTopicName,
    default: '',
    description: `Topic of ${what}; empty: the one TOPIC_PREFIX names.`,
  }) as const satisfies Variable;

export const TOPICS = [
  {
    name: 'TOPIC_PREFIX',
    group: 'Topics',
    schema: topicPrefix,
    default: DEFAULT_TOPIC_PREFIX,
    description:
      'Prefix of every topic name: <prefix>commands.<type>, <prefix>events, <prefix>dead-letter, <prefix>ledger.',
  },
  {
    name: 'TOPIC_PARTITIONS',
    group: 'Topics',
    schema: integer({ min: 1, max: 10_000 }),
    default: String(DEFAULT_TOPIC_LAYOUT.partitions),
    description:
      'Partitions of every topic the bridge creates. Command topics and the ledger must all have the same count, which bounds how many instances do work.',
  },
  {
    name: 'TOPICS_CREATE',
    group: 'Topics',
    schema: flag,
    default: String(DEFAULT_TOPIC_LAYOUT.create),
    description:
      'Whether the bridge creates missing topics at start (as signing-bridge topics create does). false: it checks that they exist and refuses to start naming the missing ones.',
  },
  {
    name: 'TOPIC_REPLICATION_FACTOR',
    group: 'Topics',
    schema: optionalInteger({ min: 1, max: 100 }),
    default: '',
    description:
      "Replicas of each partition of the topics created; empty: the broker's default.replication.factor. topics check compares it when set.",
  },
  {
    name: 'TOPIC_MIN_INSYNC_REPLICAS',
    group: 'Topics',
    schema: optionalInteger({ min: 1, max: 100 }),
    default: '',
    description:
      "min.insync.replicas of the topics created; empty: the broker's default. topics check compares it when set.",
  },
  {
    name: 'TOPIC_RETENTION_MS',
    group: 'Topics',
    schema: milliseconds(60_000),
    default: String(DEFAULT_TOPIC_LAYOUT.retentionMs),
    description:
      'retention.ms of the command and events topics created: how long a command waits for a bridge that is down, and how far back a subscriber can read.',
  },
  {
    name: 'TOPIC_DEAD_LETTER_RETENTION_MS',
    group: 'Topics',
    schema: milliseconds(60_000),
    default: String(DEFAULT_TOPIC_LAYOUT.deadLetterRetentionMs),
    description:
      'retention.ms of the dead-letter topic created: how long a dead letter can still be replayed (signing-bridge dlq replay).',
  },
  topicOverride('TOPIC_COMMANDS_CREATE_CONTRACT', 'create-contract commands'),
  topicOverride('TOPIC_COMMANDS_ADD_DOCUMENT', 'add-document commands'),
  topicOverride('TOPIC_COMMANDS_INITIATE', 'initiate commands'),
  topicOverride('TOPIC_COMMANDS_APPROVE', 'approve commands'),
  topicOverride('TOPIC_COMMANDS_REMIND', 'remind commands'),
  topicOverride('TOPIC_COMMANDS_ADD_SIGNATORY', 'add-signatory commands'),
  topicOverride('TOPIC_EVENTS', 'result and failure events'),
  topicOverride('TOPIC_DEAD_LETTER', 'records that could not be read'),
  topicOverride('TOPIC_LEDGER', 'the ledger (compacted)'),
] as const satisfies readonly Variable[];
