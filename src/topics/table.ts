/**
 * The topic table: every topic the bridge uses and the settings it is created with. The bridge's
 * own topic creation, `signing-bridge topics create` and `topics check` all read it; the
 * settings of each role are those the AsyncAPI document states (schemas/messages/topic-settings),
 * with the TOPIC_* variables' partitions, replication and retention.
 */
import type { TopicLayout, TopicSpec } from '../kafka/types.js';
import {
  DEFAULT_TOPIC_PARTITIONS,
  TOPIC_CONFIGS,
  type TopicRole,
} from '../schemas/messages/topic-settings.js';
import type { TopicNames } from '../schemas/messages/topics.js';

export type { TopicRole };

export interface TopicRow extends TopicSpec {
  readonly role: TopicRole;
}

/** The layout where nothing else is said; the TOPIC_* variables of src/config default to it. */
export const DEFAULT_TOPIC_LAYOUT: TopicLayout = {
  partitions: DEFAULT_TOPIC_PARTITIONS,
  retentionMs: TOPIC_CONFIGS.commands['retention.ms'],
  deadLetterRetentionMs: TOPIC_CONFIGS.deadLetter['retention.ms'],
  create: true,
};

/** The ledger's configuration entries, as Kafka takes them (strings). */
export const LEDGER_CONFIGS: Readonly<Record<string, string>> = asStrings(TOPIC_CONFIGS.ledger);

/**
 * The configuration entries the bridge relies on, by role: a topic made without them (by an
 * earlier version, by hand, by a platform team) still works, and the bridge says at start what
 * it lacks. The ledger's keep its restores short and its times the instances' own; a command
 * topic's record times are the broker's (LogAppendTime), which a record's expiry is judged by.
 */
export const RELIED_ON: Readonly<Record<TopicRole, readonly string[]>> = {
  commands: ['message.timestamp.type'],
  events: [],
  deadLetter: [],
  ledger: Object.keys(LEDGER_CONFIGS),
};

/** Every configuration entry the table sets on some topic. */
export const TABLE_CONFIG_NAMES: readonly string[] = [
  ...new Set([
    ...Object.values(TOPIC_CONFIGS).flatMap((configs) => Object.keys(configs)),
    'min.insync.replicas',
  ]),
];

/** The layout given, its missing parts from DEFAULT_TOPIC_LAYOUT. */
export function fullLayout(given: Partial<TopicLayout>): TopicLayout {
  return { ...DEFAULT_TOPIC_LAYOUT, ...given };
}

export function topicTable(names: TopicNames, given: Partial<TopicLayout>): TopicRow[] {
  const layout = fullLayout(given);
  const inSync: Record<string, string> =
    layout.minInsyncReplicas === undefined
      ? {}
      : { 'min.insync.replicas': String(layout.minInsyncReplicas) };
  // The ledger is compacted: it keeps each bizId's last entry for good, not for a time.
  const retentionOf: Record<TopicRole, number | undefined> = {
    commands: layout.retentionMs,
    events: layout.retentionMs,
    deadLetter: layout.deadLetterRetentionMs,
    ledger: undefined,
  };
  const row = (topic: string, role: TopicRole): TopicRow => {
    const retention = retentionOf[role];
    const retained: Record<string, string> =
      retention === undefined ? {} : { 'retention.ms': String(retention) };
    return {
      topic,
      role,
      partitions: layout.partitions,
      replicationFactor: layout.replicationFactor,
      configs: { ...asStrings(TOPIC_CONFIGS[role]), ...retained, ...inSync },
    };
  };
  return [
    ...Object.values(names.commands).map((topic) => row(topic, 'commands')),
    row(names.events, 'events'),
    row(names.deadLetter, 'deadLetter'),
    row(names.ledger, 'ledger'),
  ];
}

function asStrings(configs: Readonly<Record<string, string | number>>): Record<string, string> {
  return Object.fromEntries(Object.entries(configs).map(([name, value]) => [name, String(value)]));
}
