/**
 * How the topics are meant to be configured: what the AsyncAPI document states in its Kafka
 * bindings, what a platform team creates, and what the bridge and `signing-bridge topics create`
 * create (src/topics/table.ts, with the TOPIC_* variables' partitions and retention). The ledger's settings keep it small and its
 * restore short: compaction soon after a segment rolls (hourly), and within a day at the latest.
 *
 * Record times (docs/design.md, "Clocks"): a command record's time is when the broker appended
 * it (LogAppendTime), so its age for its expiry is the time it came into the topic, whatever its
 * producer's clock said (a record mirrored or published again keeps an old one). The ledger's
 * records keep the time the instance writing them gave (CreateTime): the restore checkpoint and
 * the sweep compare those times with that instance's clock, so no skew between an instance and
 * a broker can put a needed entry before the checkpoint.
 */

/** TOPIC_PARTITIONS' default: command topics and the ledger share one partition count. */
export const DEFAULT_TOPIC_PARTITIONS = 12;
/** Replicas per partition on a production cluster (the bridge itself takes the broker's default). */
export const RECOMMENDED_REPLICAS = 3;

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export type TopicRole = 'commands' | 'events' | 'deadLetter' | 'ledger';

/** Topic configuration entries by role, as Kafka names them. */
export const TOPIC_CONFIGS = {
  commands: {
    'cleanup.policy': 'delete',
    'retention.ms': WEEK_MS,
    'message.timestamp.type': 'LogAppendTime',
  },
  events: { 'cleanup.policy': 'delete', 'retention.ms': WEEK_MS },
  // Long enough for someone to look at a dead letter, fix what made it fail and replay it.
  deadLetter: { 'cleanup.policy': 'delete', 'retention.ms': 30 * DAY_MS },
  ledger: {
    'cleanup.policy': 'compact',
    'segment.ms': HOUR_MS,
    'min.cleanable.dirty.ratio': 0.1,
    'min.compaction.lag.ms': 0,
    'max.compaction.lag.ms': DAY_MS,
    'delete.retention.ms': DAY_MS,
    'message.timestamp.type': 'CreateTime',
  },
} as const satisfies Record<TopicRole, Record<string, string | number>>;
