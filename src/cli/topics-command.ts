/**
 * `signing-bridge topics create | check | grow`: the bridge's topics against the topic table
 * (src/topics), with the settings of the environment (TOPIC_PARTITIONS, ...). `create` makes the
 * missing ones and changes nothing that exists; both then say what still differs. `grow` grows
 * the co-partitioned topics together and moves the ledger entries (ops/topics-grow.ts).
 */
import { TopicsGrowRefused } from '../errors.js';
import { compareTopics, type TopicState } from '../topics/differences.js';
import { durabilityShortfall } from '../topics/durability.js';
import { TABLE_CONFIG_NAMES, type TopicRow, topicTable } from '../topics/table.js';
import { EXIT } from './ops/exit-codes.js';
import {
  inputInvalid,
  type OperatorContext,
  type OperatorSpec,
  type Output,
  runOperator,
  type Values,
} from './ops/operator.js';
import { growTopics } from './ops/topics-grow.js';

const USAGE = `Usage: signing-bridge topics (create | check) [--json]
       signing-bridge topics grow --partitions N [--accept-lag]

Every topic of the bridge (the command topics, events, dead-letter and ledger) with the
settings it should have: partitions (TOPIC_PARTITIONS), replication factor
(TOPIC_REPLICATION_FACTOR, when set), min.insync.replicas (TOPIC_MIN_INSYNC_REPLICAS, when
set), cleanup.policy and retention.ms (TOPIC_RETENTION_MS, TOPIC_DEAD_LETTER_RETENTION_MS),
message.timestamp.type (LogAppendTime on command topics: a record's age is the broker's, not
its producer's; CreateTime on the ledger), and for the ledger its compaction settings.

  check   lists every topic and what differs from those settings; exits 1 when anything does.
          A topic with fewer than 3 replicas or a min.insync.replicas below 2 (or as high as
          its replicas) gets a warning line: what production wants, which exit 0 leaves to you
  create  creates the missing topics with those settings (running it again changes nothing),
          then does what check does; a topic that exists is never changed
  grow    grows every command topic and the ledger below N partitions to N (N at least the
          largest count, also when the command topics were grown alone), and moves each ledger
          entry to its bizId's partition under N; with every topic at N already it only moves
          the entries (completing a grow cut off). Refused (exit 1, changing nothing) while the
          group KAFKA_GROUP_ID has members, or has not committed every record on the partitions
          below the smallest count: stop the producers and the bridge, grow, set
          TOPIC_PARTITIONS=N, start the bridge, then the producers. With --accept-lag it grows
          all the same (the bridge stopped with records it can no longer run on mixed counts):
          after the grow each of those records is forwarded to its bizId's new partition and
          runs behind what is already there, so a bizId may see its newer commands first

Options:
  --partitions N  for grow: the partition count to grow to
  --accept-lag    for grow: grow although records below the smallest count were not run
  --json      one JSON object per topic: topic, role, exists, created, partitions,
              replicationFactor, configs, differences [{setting, expected, actual}],
              durability (the warning, or null)
  -h, --help  show this help
`;

export const TOPICS: OperatorSpec = {
  name: 'topics',
  usage: USAGE,
  options: { partitions: { type: 'string' }, 'accept-lag': { type: 'boolean' } },
  run: topics,
};

export function main(argv: string[]): Promise<number> {
  return runOperator(TOPICS, argv);
}

async function topics(context: OperatorContext, values: Values, positionals: string[]) {
  const [action, ...extra] = positionals;
  if (action !== 'create' && action !== 'check' && action !== 'grow') {
    throw inputInvalid('<action>', 'give create, check or grow');
  }
  if (extra.length > 0) throw inputInvalid('arguments', `unexpected "${extra.join(' ')}"`);
  if (action === 'grow') return grow(context, values.partitions, values['accept-lag'] === true);
  const kafka = await context.connect();
  const table = topicTable(context.topics, kafka.topicLayout);
  const admin = await kafka.clusterAdmin();
  try {
    const describe = () =>
      admin.describeTopics(
        table.map((row) => row.topic),
        TABLE_CONFIG_NAMES,
      );
    let states = compareTopics(table, await describe());
    const missing: TopicRow[] = states.filter((s) => !s.actual).map((s) => s.row);
    if (action === 'create' && missing.length > 0) {
      await admin.createTopics(missing);
      states = compareTopics(table, await describe());
    }
    const created = new Set(action === 'create' ? missing.map((row) => row.topic) : []);
    return report(context.out, states, created);
  } finally {
    await admin.disconnect();
  }
}

function report(out: Output, states: readonly TopicState[], created: ReadonlySet<string>): number {
  for (const state of states) printState(out, state, created.has(state.row.topic));
  const differing = states.filter((s) => s.differences.length > 0).length;
  out.heading(
    differing === 0
      ? `\nall ${states.length} topics as they should be`
      : `\n${differing} of ${states.length} topics differ from what they should be`,
  );
  return differing === 0 ? EXIT.ok : EXIT.notAsExpected;
}

function printState(out: Output, { row, actual, differences }: TopicState, created: boolean) {
  const durability = actual ? durabilityShortfall(actual) : undefined;
  const json = {
    topic: row.topic,
    role: row.role,
    exists: actual !== undefined,
    created,
    partitions: actual?.partitions,
    replicationFactor: actual?.replicationFactor,
    configs: actual
      ? Object.fromEntries(Object.keys(row.configs).map((name) => [name, actual.configs[name]]))
      : undefined,
    differences,
    durability: durability ?? null,
  };
  const mark = differences.length === 0 ? out.style('green', 'ok  ') : out.style('red', 'DIFF');
  const facts = actual
    ? [
        `${actual.partitions} partitions`,
        `replication ${actual.replicationFactor}`,
        ...Object.keys(row.configs).map((name) => `${name}=${actual.configs[name] ?? '(none)'}`),
      ].join(', ')
    : 'missing';
  const lines = [`${mark}  ${row.topic} (${row.role}${created ? ', created' : ''}): ${facts}`];
  for (const { setting, expected, actual: found } of actual ? differences : []) {
    lines.push(`        ${setting}: is ${found}, should be ${expected}`);
  }
  if (durability) lines.push(`        ${out.style('yellow', 'warning')}: ${durability}`);
  out.result(json, lines.join('\n'));
}

async function grow(
  context: OperatorContext,
  partitions: unknown,
  acceptLag: boolean,
): Promise<number> {
  const to = Number(partitions);
  if (typeof partitions !== 'string' || !Number.isSafeInteger(to) || to < 1) {
    throw inputInvalid('--partitions', 'give the partition count to grow to, a whole number');
  }
  const kafka = await context.connect();
  const groupId = context.config.KAFKA_GROUP_ID;
  try {
    const { grown, moved, lag } = await growTopics(kafka, context.topics, groupId, to, {
      acceptLag,
    });
    const unrun = Object.values(lag).reduce((sum, n) => sum + n, 0);
    if (unrun > 0) {
      context.out.heading(
        `--accept-lag: ${unrun} command records below the old count were not run; the bridge forwards each to its bizId's partition under ${to}, behind what is there (${Object.keys(lag).join(', ')})`,
      );
    }
    const what =
      grown.length > 0
        ? `grew ${grown.join(', ')} to ${to} partitions`
        : `every command topic and the ledger had ${to} partitions already`;
    context.out.heading(
      `${what}; moved ${moved} ledger entries to their partitions under ${to}. Set TOPIC_PARTITIONS=${to} and start the bridge`,
    );
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof TopicsGrowRefused)) throw error;
    context.out.heading(`${error.code}: ${error.message}`);
    return EXIT.notAsExpected;
  }
}
