/**
 * What the group is doing: Kafka's view (the members and what each holds, the committed offsets
 * and so the lag of every command partition) beside each instance's own (/status: commands in
 * flight, the breaker and an outage's cause, the budget and 429s, classes, hot keys, readiness).
 * `groupView` joins them (pure); `readGroup` asks for them.
 */
import type { GroupDescription } from '../../kafka/index.js';
import type { InstanceStatus } from '../../observability/status.js';
import type { CommandType, TopicNames } from '../../schemas/messages/index.js';
import type { ConsoleKafka } from './console-kafka.js';
import { askStatus, type InstanceAnswer, instanceUrls } from './instances.js';

export interface MemberView {
  readonly memberId: string;
  readonly clientId: string;
  readonly host: string;
  readonly instance: string | undefined;
  readonly partitions: readonly number[];
  readonly status: InstanceStatus | undefined;
}

export interface PartitionLag {
  readonly partition: number;
  /** Per command type: records not committed by the group. */
  readonly byType: Readonly<Partial<Record<CommandType, number>>>;
  readonly total: number;
  /** The member holding it, by instance id or member id. */
  readonly heldBy: string | undefined;
}

export interface GroupView {
  readonly at: string;
  readonly groupId: string;
  readonly state: string;
  readonly members: readonly MemberView[];
  /** Instances that answered /status but are no member of the group (standing by, starting). */
  readonly outside: readonly InstanceStatus[];
  /** Instances that could not say how they are. */
  readonly unreachable: readonly InstanceAnswer[];
  readonly lag: readonly PartitionLag[];
  readonly totalLag: number;
  readonly statuses: readonly InstanceStatus[];
}

export interface Lags {
  /** Per command topic, per partition: the end and the committed offset (undefined: none). */
  readonly [topic: string]: ReadonlyArray<{
    partition: number;
    end: bigint;
    start: bigint;
    committed?: bigint;
  }>;
}

export function groupView(
  groupId: string,
  group: GroupDescription,
  lags: Lags,
  answers: readonly InstanceAnswer[],
  topics: TopicNames,
  now = new Date(),
): GroupView {
  const statuses = answers.flatMap((answer) => (answer.status ? [answer.status] : []));
  const byInstance = new Map(statuses.map((status) => [status.instance, status]));
  const members = group.members.map((member) => ({
    memberId: member.memberId,
    clientId: member.clientId,
    host: member.clientHost,
    instance: member.instance,
    // Co-partitioned: the same numbers on every command topic and the ledger.
    partitions: [...new Set(Object.values(member.assignment).flat())].sort((a, b) => a - b),
    status: member.instance === undefined ? undefined : byInstance.get(member.instance),
  }));
  const inGroup = new Set(members.map((member) => member.instance));
  const holder = new Map<number, string>();
  for (const member of members) {
    for (const partition of member.partitions)
      holder.set(partition, member.instance ?? member.memberId);
  }
  const lag = new Map<number, { byType: Partial<Record<CommandType, number>>; total: number }>();
  for (const [type, topic] of Object.entries(topics.commands) as Array<[CommandType, string]>) {
    for (const { partition, end, start, committed } of lags[topic] ?? []) {
      const behind = end - (committed ?? start);
      const value = Number(behind > 0n ? behind : 0n);
      const row = lag.get(partition) ?? { byType: {}, total: 0 };
      row.byType[type] = value;
      row.total += value;
      lag.set(partition, row);
    }
  }
  const rows = [...lag]
    .sort(([a], [b]) => a - b)
    .map(([partition, row]) => ({ partition, ...row, heldBy: holder.get(partition) }));
  return {
    at: now.toISOString(),
    groupId,
    state: group.state,
    members,
    outside: statuses.filter((status) => !inGroup.has(status.instance)),
    unreachable: answers.filter((answer) => answer.problem !== undefined),
    lag: rows,
    totalLag: rows.reduce((total, row) => total + row.total, 0),
    statuses,
  };
}

export async function readGroup(
  kafka: ConsoleKafka,
  groupId: string,
  instances: readonly string[],
): Promise<GroupView> {
  const { topics } = kafka;
  const found = await instanceUrls(instances);
  const [group, lags, answers] = await Promise.all([
    kafka.group(groupId),
    readLags(kafka, groupId),
    Promise.all(found.urls.map(askStatus)),
  ]);
  return groupView(groupId, group, lags, [...found.problems, ...answers], topics);
}

async function readLags(kafka: ConsoleKafka, groupId: string): Promise<Lags> {
  const described = await kafka.describe();
  const lags: Record<
    string,
    Array<{ partition: number; end: bigint; start: bigint; committed?: bigint }>
  > = {};
  for (const topic of Object.values(kafka.topics.commands)) {
    if (!described.has(topic)) continue;
    const [ranges, committed] = await Promise.all([
      kafka.ranges(topic),
      kafka.committed(groupId, topic),
    ]);
    lags[topic] = ranges.map((range) => {
      const offset = committed.get(range.partition);
      return {
        partition: range.partition,
        end: BigInt(range.end),
        start: BigInt(range.start),
        ...(offset === undefined ? {} : { committed: BigInt(offset) }),
      };
    });
  }
  return lags;
}
