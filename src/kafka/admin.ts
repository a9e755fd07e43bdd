import { setTimeout as delay } from 'node:timers/promises';
import type { Admin, Kafka } from 'kafkajs';
import kafkajs, { AssignerProtocol } from 'kafkajs';
import { TopicsMissing } from '../errors.js';
import { brokerLossRetry } from './client-retry.js';
import { decodeUserData } from './co-partitioned-assigner.js';
import type { ClusterAdmin, GroupMember, PartitionRange } from './tool-types.js';
import {
  askEveryBroker,
  type BrokerAnswer,
  type ClientAt,
  untilEveryBrokerLists,
} from './topic-agreement.js';
import type { TopicDescription, TopicHealth, TopicSpec } from './types.js';

// Not among the names Node finds in kafkajs' CommonJS exports: read off the module itself.
const { ConfigResourceTypes } = kafkajs;
// The broker's default message.max.bytes, should a topic not say.
const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;

/**
 * `clientAt` makes clients pinned to one broker (topic-agreement.ts): with it, creating topics
 * waits until every broker lists them; without it (a kafkajs client configured elsewhere, whose
 * settings are not known here), until the brokers this client asks do.
 */
export async function connectAdmin(kafka: Kafka, clientAt?: ClientAt): Promise<ClusterAdmin> {
  // Its calls outlast a broker's fencing too (client-retry.ts), whatever NODE_ENV says.
  const admin = kafka.admin({ retry: brokerLossRetry() });
  await admin.connect();
  const createListed = (specs: readonly TopicSpec[]) => createTopics(admin, specs, clientAt);
  return {
    async ensureTopics(specs, { create } = { create: true }) {
      const existing = new Set(await admin.listTopics());
      const missing = specs.filter((spec) => !existing.has(spec.topic));
      if (missing.length > 0 && !create) {
        const topics = missing.map((spec) => spec.topic);
        throw new TopicsMissing(
          `topics missing: ${topics.join(', ')}; create them (signing-bridge topics create) or let the bridge create them (TOPICS_CREATE=true)`,
          { details: { topics } },
        );
      }
      await createListed(missing);
      const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.topic) });
      return new Map(topics.map(({ name, partitions }) => [name, partitions.length]));
    },
    async maxMessageBytes(topics: readonly string[]) {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((name) => ({
          type: ConfigResourceTypes.TOPIC,
          name,
          configNames: ['max.message.bytes'],
        })),
      });
      return new Map(
        resources.map(({ resourceName, configEntries }) => {
          const value = configEntries.find((e) => e.configName === 'max.message.bytes');
          return [resourceName, Number(value?.configValue ?? DEFAULT_MAX_MESSAGE_BYTES)];
        }),
      );
    },
    describeTopics: (topics, configNames) => describeTopics(admin, topics, configNames),
    partitionHealth: (topics) => partitionHealth(admin, topics),
    createTopics: createListed,
    async createPartitions(topics, count) {
      await admin.createPartitions({
        topicPartitions: topics.map((topic) => ({ topic, count })),
      });
    },
    async groupMembers(groupId) {
      const { groups } = await admin.describeGroups([groupId]);
      return groups.reduce((sum, group) => sum + group.members.length, 0);
    },
    async describeGroup(groupId) {
      const { groups } = await admin.describeGroups([groupId]);
      const group = groups.find((one) => one.groupId === groupId);
      return {
        state: group?.state ?? 'Dead',
        members: (group?.members ?? []).map(
          (member): GroupMember => ({
            memberId: member.memberId,
            clientId: member.clientId,
            clientHost: member.clientHost,
            instance: decodeUserData(member.memberMetadata)?.instance,
            assignment: assignmentOf(member.memberAssignment),
          }),
        ),
      };
    },
    async partitionLeaders(topic) {
      const [{ brokers }, { topics }] = await Promise.all([
        admin.describeCluster(),
        admin.fetchTopicMetadata({ topics: [topic] }),
      ]);
      const byNode = new Map(brokers.map(({ nodeId, host, port }) => [nodeId, { host, port }]));
      const leaders = new Map<number, { host: string; port: number }>();
      for (const { partitionId, leader } of topics[0]?.partitions ?? []) {
        const address = byNode.get(leader);
        if (address) leaders.set(partitionId, address);
      }
      return leaders;
    },
    async ranges(topic) {
      const offsets = await retried(() => admin.fetchTopicOffsets(topic));
      return offsets
        .map(({ partition, low, high }): PartitionRange => ({ partition, start: low, end: high }))
        .sort((a, b) => a.partition - b.partition);
    },
    async offsetsAt(topic, timestamp) {
      const offsets = await retried(() => admin.fetchTopicOffsetsByTimestamp(topic, timestamp));
      return new Map(offsets.map(({ partition, offset }) => [partition, offset]));
    },
    async committed(groupId, topic) {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const held = (offsets?.partitions ?? []).filter(({ offset }) => Number(offset) >= 0);
      return new Map(held.map(({ partition, offset }) => [partition, offset]));
    },
    async commitIfIdle(groupId, topic, offsets) {
      if (offsets.size === 0) return true;
      const { groups } = await admin.describeGroups([groupId]);
      if (groups.some((group) => group.members.length > 0)) return false;
      const partitions = [...offsets].map(([partition, offset]) => ({ partition, offset }));
      await admin.setOffsets({ groupId, topic, partitions });
      return true;
    },
    disconnect: () => admin.disconnect(),
  };
}

/** A member's assignment as the group's leader wrote it; empty while a rebalance is under way. */
function assignmentOf(bytes: Buffer): Record<string, number[]> {
  try {
    return AssignerProtocol.MemberAssignment.decode(bytes)?.assignment ?? {};
  } catch {
    return {};
  }
}

// With the backoff below, about 10 s in all.
const RETRIES = 8;

/**
 * kafkajs gives up at once on some errors that pass, such as a partition's leader not known yet
 * to the broker named as its leader, moments after the topic was created: try again a few times.
 */
async function retried<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= RETRIES || (error as { retriable?: unknown }).retriable !== true) throw error;
      await delay(Math.min(2_000, 100 * 2 ** attempt));
    }
  }
}

/**
 * When another instance creates them at the same moment, kafkajs returns false: fine. kafkajs'
 * own wait for leaders gives up on the first "does not host this topic-partition" a broker
 * answers while the topic is still being set up, and asks one broker only, so the wait is ours:
 * until every broker lists the topics with a leader for every partition (topic-agreement.ts),
 * since what comes next (describing their settings, the bridge's producers and consumers) may
 * ask any of them.
 */
async function createTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
  clientAt: ClientAt | undefined,
): Promise<void> {
  if (specs.length === 0) return;
  await admin.createTopics({
    waitForLeaders: false,
    topics: specs.map(({ topic, partitions, replicationFactor, configs }) => ({
      topic,
      numPartitions: partitions,
      ...(replicationFactor === undefined ? {} : { replicationFactor }),
      configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })),
    })),
  });
  await untilEveryBrokerLists(
    specs.map((spec) => spec.topic),
    async (topics) => {
      if (clientAt === undefined) return [await askAny(admin, topics)];
      const described = await admin.describeCluster().catch((error: Error) => error);
      if (described instanceof Error) return [{ who: 'the cluster', error: described.message }];
      return askEveryBroker(clientAt, described.brokers, topics);
    },
  );
}

/** Without pinned clients: whichever broker kafkajs asks. */
function askAny(admin: Admin, topics: readonly string[]): Promise<BrokerAnswer> {
  const who = 'the broker asked';
  return admin.fetchTopicMetadata({ topics: [...topics] }).then(
    ({ topics: listed }) => ({ who, topics: listed }),
    (error: Error) => ({ who, error: error.message }),
  );
}

async function describeTopics(
  admin: Admin,
  topics: readonly string[],
  configNames: readonly string[],
): Promise<Map<string, TopicDescription>> {
  const listed = new Set(await admin.listTopics());
  const present = topics.filter((topic) => listed.has(topic));
  if (present.length === 0) return new Map();
  const { topics: metadata } = await admin.fetchTopicMetadata({ topics: present });
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: present.map((name) => ({
      type: ConfigResourceTypes.TOPIC,
      name,
      configNames: [...configNames],
    })),
  });
  const configsOf = new Map(
    resources.map((resource) => [
      resource.resourceName,
      Object.fromEntries(resource.configEntries.map((e) => [e.configName, e.configValue])),
    ]),
  );
  return new Map(
    metadata.map(({ name, partitions }) => [
      name,
      {
        topic: name,
        partitions: partitions.length,
        replicationFactor: Math.min(...partitions.map((p) => p.replicas.length)),
        configs: configsOf.get(name) ?? {},
      },
    ]),
  );
}

async function partitionHealth(
  admin: Admin,
  topics: readonly string[],
): Promise<Map<string, TopicHealth>> {
  const described = await describeTopics(admin, topics, ['min.insync.replicas']);
  if (described.size === 0) return new Map();
  const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...described.keys()] });
  const brokers = (await admin.describeCluster()).brokers.map((broker) => broker.nodeId);
  return new Map(
    metadata.map(({ name, partitions }) => [
      name,
      {
        minInsyncReplicas: Number(described.get(name)?.configs['min.insync.replicas'] ?? 1),
        brokers,
        partitions: partitions.map((p) => ({
          partition: p.partitionId,
          leader: p.leader,
          replicas: p.replicas,
          isr: p.isr,
          offlineReplicas: p.offlineReplicas ?? [],
        })),
      },
    ]),
  );
}
