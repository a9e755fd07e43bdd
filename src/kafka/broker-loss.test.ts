import { createRequire } from 'node:module';
import {
  type AdminConfig,
  type ConsumerConfig,
  type Kafka,
  KafkaJSConnectionError,
  logLevel,
  type ProducerConfig,
  type RetryOptions,
} from 'kafkajs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectAdmin } from './admin.js';
import { longestRetryWaitMs, OUTBOX_RETRY } from './client-retry.js';
import { KafkajsGroupConsumer } from './group-consumer.js';
import { connectProducer, connectTransactionalProducer, coveringProducer } from './producer.js';

// kafkajs' own consumer and cluster, read (never changed): a unit test drives them over fake
// brokers, one of which goes away, to show what the consumer's retry options decide.
const load = createRequire(import.meta.url);
const Cluster = load('kafkajs/src/cluster/index.js') as new (options: unknown) => FakeableCluster;
const createConsumer = load('kafkajs/src/consumer/index.js') as (options: unknown) => Consumer;
const createProducer = load('kafkajs/src/producer/index.js') as (options: unknown) => Producer;
const { createLogger } = load('kafkajs/src/loggers/index.js') as {
  createLogger: (options: unknown) => unknown;
};
// What a broker's Metadata answer goes through before the cluster sees it (every version).
const { parse: parseMetadata } = load('kafkajs/src/protocol/requests/metadata/v0/response.js') as {
  parse: (answer: unknown) => Promise<unknown>;
};
const LEADER_NOT_AVAILABLE = 5;

interface FakeableCluster {
  brokerPool: {
    connectionPoolBuilder: { build: (address?: Address) => Promise<Address> };
    createBroker: (options: { connectionPool: Address; nodeId?: number }) => unknown;
  };
}
interface Consumer {
  connect(): Promise<void>;
  subscribe(options: { topics: string[]; fromBeginning: boolean }): Promise<void>;
  run(options: { eachBatch: () => Promise<void> }): Promise<void>;
  on(event: string, listener: (event: { payload: { error: Error } }) => void): unknown;
  events: { CRASH: string };
  disconnect(): Promise<void>;
}
interface Producer {
  connect(): Promise<void>;
  send(record: {
    topic: string;
    acks: number;
    messages: Array<{ partition: number; value: string }>;
  }): Promise<Array<{ partition: number }>>;
  disconnect(): Promise<void>;
}
interface Address {
  host: string;
  port: number;
  rack?: string | null;
}

const quiet = () => createLogger({ level: logLevel.NOTHING, logCreator: () => () => {} });

const TOPIC = 't';
const GROUP = 'g';
/** Kafka's default `broker.session.timeout.ms`: how long a killed broker still leads. */
const FENCED_AFTER_MS = 9_000;
const FETCH_WAIT_MS = 200;

/**
 * Three brokers; partition p of topic `t` led by broker p + 1 (partition 2's only replica is
 * broker 3 when `soleReplica`), broker 1 the group's coordinator. `kill(3)`: broker 3 refuses
 * every connection from then on (ECONNREFUSED, as a stopped process's port does) while the
 * metadata still names it leader of partition 2, until FENCED_AFTER_MS later the controller
 * fences it: the metadata then lists brokers 1 and 2 only, and partition 2 is led by broker 1,
 * or by none (LEADER_NOT_AVAILABLE, leader -1) when broker 3 was its only replica. `revive(3)`:
 * it serves and leads its partitions again. Metadata answers go through kafkajs' own parser;
 * every fetch answers one record per partition asked, after 200 ms.
 */
function threeBrokers({ soleReplica = false } = {}) {
  const address = (nodeId: number): Address => ({ host: `b${nodeId}`, port: 9090 + nodeId });
  const leaders = new Map([
    [0, 1],
    [1, 2],
    [2, 3],
  ]);
  const replicasOf = (partition: number) => (soleReplica && partition === 2 ? [3] : [1, 2, 3]);
  const listed = new Set([1, 2, 3]);
  const dead = new Set<number>();
  const fetchedFrom: Array<{ nodeId: number; partition: number }> = [];
  const producedTo: Array<{ nodeId: number; partition: number }> = [];
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const broker = ({ connectionPool }: { connectionPool: Address }) => {
    const nodeId = connectionPool.port - 9090;
    let connected = false;
    return {
      nodeId,
      connectionPool,
      versions: {},
      isConnected: () => connected && !dead.has(nodeId),
      connect: async () => {
        if (dead.has(nodeId)) {
          throw new KafkaJSConnectionError(
            `Connection error: connect ECONNREFUSED ${connectionPool.host}:${connectionPool.port}`,
            { broker: `${connectionPool.host}:${connectionPool.port}`, code: 'ECONNREFUSED' },
          );
        }
        connected = true;
      },
      disconnect: async () => {
        connected = false;
      },
      metadata: async () =>
        parseMetadata({
          controllerId: 1,
          brokers: [...listed].map((id) => ({ nodeId: id, ...address(id), rack: null })),
          topicMetadata: [
            {
              topicErrorCode: 0,
              topic: TOPIC,
              isInternal: false,
              partitionMetadata: [...leaders].map(([partitionId, leader]) => ({
                partitionErrorCode: leader === -1 ? LEADER_NOT_AVAILABLE : 0,
                partitionId,
                leader,
                replicas: replicasOf(partitionId),
                isr: replicasOf(partitionId).filter((id) => listed.has(id)),
                offlineReplicas: [],
              })),
            },
          ],
        }),
      findGroupCoordinator: async () => ({ coordinator: { nodeId: 1, ...address(1) } }),
      joinGroup: async ({
        groupProtocols,
      }: {
        groupProtocols: Array<{ name: string; metadata: Buffer }>;
      }) => ({
        generationId: 1,
        leaderId: 'm',
        memberId: 'm',
        groupProtocol: groupProtocols[0]?.name,
        members: [{ memberId: 'm', memberMetadata: groupProtocols[0]?.metadata }],
      }),
      syncGroup: async ({
        groupAssignment,
      }: {
        groupAssignment: Array<{ memberAssignment: Buffer }>;
      }) => ({
        memberAssignment: groupAssignment[0]?.memberAssignment,
      }),
      heartbeat: async () => ({}),
      offsetFetch: async ({
        topics,
      }: {
        topics: Array<{ topic: string; partitions: Array<{ partition: number }> }>;
      }) => ({
        responses: topics.map(({ topic, partitions }) => ({
          topic,
          partitions: partitions.map(({ partition }) => ({
            partition,
            offset: '0',
            metadata: null,
          })),
        })),
      }),
      offsetCommit: async () => ({}),
      leaveGroup: async () => ({}),
      initProducerId: async () => ({ producerId: 7, producerEpoch: 0 }),
      produce: async ({
        topicData,
      }: {
        topicData: Array<{ topic: string; partitions: Array<{ partition: number }> }>;
      }) => ({
        topics: topicData.map(({ topic, partitions }) => ({
          topicName: topic,
          partitions: partitions.map(({ partition }) => {
            producedTo.push({ nodeId, partition });
            return { partition, errorCode: 0, baseOffset: '0', logAppendTime: '-1' };
          }),
        })),
      }),
      fetch: async ({
        topics,
      }: {
        topics: Array<{
          topic: string;
          partitions: Array<{ partition: number; fetchOffset: string }>;
        }>;
      }) => {
        await sleep(FETCH_WAIT_MS);
        return {
          responses: topics.map(({ topic, partitions }) => ({
            topicName: topic,
            partitions: partitions.map(({ partition, fetchOffset }) => {
              fetchedFrom.push({ nodeId, partition });
              const offset = Number(fetchOffset);
              return {
                partition,
                errorCode: 0,
                highWatermark: String(offset + 1),
                lastStableOffset: String(offset + 1),
                abortedTransactions: [],
                messages: [
                  {
                    offset: String(offset),
                    key: null,
                    value: Buffer.from('v'),
                    timestamp: '0',
                    headers: {},
                    isControlRecord: false,
                  },
                ],
              };
            }),
          })),
        };
      },
    };
  };

  const cluster = new Cluster({
    logger: quiet(),
    brokers: ['b1:9091'],
    clientId: 'test',
    connectionTimeout: 1_000,
    // As kafka.consumer() makes its cluster: the consumer's own, 5 minutes when not given.
    metadataMaxAge: bridgeConsumerConfig().metadataMaxAge ?? 300_000,
    allowAutoTopicCreation: false,
  });
  // The network: the fake brokers above, one per address.
  cluster.brokerPool.connectionPoolBuilder = {
    build: async (at = address(1)) => ({ host: at.host, port: at.port, rack: null }),
  };
  cluster.brokerPool.createBroker = broker;

  return {
    cluster,
    fetchedFrom,
    producedTo,
    kill(nodeId: number) {
      dead.add(nodeId);
      setTimeout(() => {
        listed.delete(nodeId);
        for (const [partition, leader] of leaders) {
          if (leader !== nodeId) continue;
          const successor = replicasOf(partition).find((id) => listed.has(id));
          leaders.set(partition, successor ?? -1);
        }
      }, FENCED_AFTER_MS);
    },
    revive(nodeId: number) {
      dead.delete(nodeId);
      listed.add(nodeId);
      for (const [partition, leader] of leaders) {
        if (leader === -1 && replicasOf(partition).includes(nodeId)) leaders.set(partition, nodeId);
      }
    },
  };
}

/** What the bridge's group consumer asks kafkajs for (`kafka.consumer(config)`). */
function bridgeConsumerConfig(): ConsumerConfig {
  let asked: ConsumerConfig | undefined;
  const kafka = {
    consumer: (config: ConsumerConfig) => {
      asked = config;
      return {};
    },
  } as unknown as Kafka;
  new KafkajsGroupConsumer(kafka, { groupId: GROUP, instanceId: 'i' });
  if (asked === undefined) throw new Error('no consumer made');
  return asked;
}

/**
 * kafkajs' consumer as `kafka.consumer(config)` makes it (the client sets no retry of its own to
 * merge in), over the fake cluster, with the bridge's settings but for `retry`.
 */
async function consumerOver(cluster: FakeableCluster, retry: RetryOptions | undefined) {
  const { sessionTimeout, heartbeatInterval, maxWaitTimeInMs, metadataMaxAge } =
    bridgeConsumerConfig();
  const consumer = createConsumer({
    cluster,
    groupId: GROUP,
    // kafka.consumer()'s own default (kafkajs/src/index.js), merged over the client's none.
    retry: retry ?? { retries: 5 },
    logger: quiet(),
    sessionTimeout,
    heartbeatInterval,
    maxWaitTimeInMs,
    // kafka.consumer()'s default when not given: 5 minutes.
    metadataMaxAge: metadataMaxAge ?? 300_000,
  });
  const crashes: Error[] = [];
  consumer.on(consumer.events.CRASH, ({ payload }) => crashes.push(payload.error));
  await consumer.connect();
  await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
  await consumer.run({ eachBatch: async () => {} });
  return { consumer, crashes };
}

describe('the group consumer when a broker goes away', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function brokerKilled(retry: RetryOptions | undefined) {
    const brokers = threeBrokers();
    const { consumer, crashes } = await consumerOver(brokers.cluster, retry);
    // Joined on the real clock; from here on, a virtual one.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await vi.advanceTimersByTimeAsync(2_000);
    const fetchedBefore = brokers.fetchedFrom.length;
    brokers.kill(3);
    await vi.advanceTimersByTimeAsync(FENCED_AFTER_MS + 5_000);
    const after = brokers.fetchedFrom.slice(fetchedBefore);
    const disconnected = consumer.disconnect();
    await vi.advanceTimersByTimeAsync(5_000);
    await disconnected;
    return { crashes, after };
  }

  it("kafkajs 2.2.4's own consumer retry ({ retries: 5 }, what kafka.consumer() gives one without): a broker refusing connections until the controller fences it crashes the consumer", async () => {
    const { crashes } = await brokerKilled(undefined);
    expect(crashes.map((e) => e.name)).toContain('KafkaJSNumberOfRetriesExceeded');
    expect(crashes[0]?.message).toContain('ECONNREFUSED');
  });

  it(`when a broker refuses connections for the ${FENCED_AFTER_MS / 1000} s until the controller fences it, then the bridge's consumer retry outlasts it: no crash, and its partition is fetched from the new leader`, async () => {
    const { crashes, after } = await brokerKilled(bridgeConsumerConfig().retry);
    expect(crashes).toEqual([]);
    expect(after).toContainEqual({ nodeId: 1, partition: 2 });
    expect(after).toContainEqual({ nodeId: 2, partition: 1 });
  });

  it("when a partition's only replica is killed, then once it is fenced the partition has no leader: the consumer does not crash, fetches the others meanwhile, and fetches it again soon after its broker is back", async () => {
    const brokers = threeBrokers({ soleReplica: true });
    const { consumer, crashes } = await consumerOver(brokers.cluster, bridgeConsumerConfig().retry);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await vi.advanceTimersByTimeAsync(2_000);
    brokers.kill(3);
    await vi.advanceTimersByTimeAsync(FENCED_AFTER_MS + 1_000);
    const leaderless = brokers.fetchedFrom.length;
    await vi.advanceTimersByTimeAsync(30_000);
    const whileLeaderless = brokers.fetchedFrom.slice(leaderless);
    brokers.revive(3);
    await vi.advanceTimersByTimeAsync(10_000);
    const afterRevival = brokers.fetchedFrom.slice(leaderless + whileLeaderless.length);
    const disconnected = consumer.disconnect();
    await vi.advanceTimersByTimeAsync(5_000);
    await disconnected;

    expect(crashes.map((e) => e.message)).toEqual([]);
    expect(new Set(whileLeaderless.map((f) => f.partition))).toEqual(new Set([0, 1]));
    expect(afterRevival).toContainEqual({ nodeId: 3, partition: 2 });
  });
});

/** What the bridge's (and the SDK's) producers ask kafkajs for (`kafka.producer(config)`). */
function bridgeProducerConfig(): ProducerConfig {
  let asked: ProducerConfig | undefined;
  const kafka = {
    producer: (config: ProducerConfig) => {
      asked = config;
      return {};
    },
  } as unknown as Kafka;
  coveringProducer(kafka);
  if (asked === undefined) throw new Error('no producer made');
  return asked;
}

/** What the bridge's admin asks kafkajs for (`kafka.admin(config)`). */
/** What the outbox's producers, at-least-once then exactly-once, ask kafka.producer() for. */
async function outboxProducerConfigs(): Promise<ProducerConfig[]> {
  const asked: ProducerConfig[] = [];
  const kafka = {
    producer: (config: ProducerConfig) => {
      asked.push(config);
      return { connect: async () => {} };
    },
  } as unknown as Kafka;
  await connectProducer(kafka);
  await connectTransactionalProducer(kafka, 'outbox', 60_000);
  return asked;
}

async function bridgeAdminConfig(): Promise<AdminConfig> {
  let asked: AdminConfig | undefined;
  const kafka = {
    admin: (config: AdminConfig) => {
      asked = config;
      return { connect: async () => {} };
    },
  } as unknown as Kafka;
  await connectAdmin(kafka);
  if (asked === undefined) throw new Error('no admin made');
  return asked;
}

describe("the bridge's and the SDK's producers and admin when a broker goes away", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * Broker 3 (partition 2's leader) killed at once; one send to partition 2, through kafkajs'
   * own idempotent producer as kafka.producer(config) makes it (a client without a retry of its
   * own: `retry` is `{ ...undefined, ...config.retry }`). Under vitest NODE_ENV is `test`, as it
   * is for every bridge process and SDK client the integration tests start.
   */
  async function sendWhileFenced(retry: RetryOptions | undefined) {
    const brokers = threeBrokers();
    const producer = createProducer({
      cluster: brokers.cluster,
      logger: quiet(),
      retry: { ...retry },
      idempotent: true,
    });
    await producer.connect();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    brokers.kill(3);
    const sent = producer.send({
      topic: TOPIC,
      acks: -1,
      messages: [{ partition: 2, value: 'v' }],
    });
    const outcome = sent.then(
      (answer) => ({ answer, error: undefined }),
      (error: Error) => ({ answer: undefined, error }),
    );
    await vi.advanceTimersByTimeAsync(FENCED_AFTER_MS + 15_000);
    const settled = await outcome;
    await producer.disconnect();
    return { ...settled, producedTo: brokers.producedTo };
  }

  it("kafkajs 2.2.4's own producer retry (none given, NODE_ENV=test: 15 tries, about 9.5 s): a send to a partition whose leader was killed is refused before the controller has fenced it and named another", async () => {
    const { error, producedTo } = await sendWhileFenced(undefined);
    expect(error?.name).toBe('KafkaJSNumberOfRetriesExceeded');
    expect(error?.message).toContain('ECONNREFUSED');
    expect(producedTo).toEqual([]);
  });

  it(`when a partition's leader refuses connections for the ${FENCED_AFTER_MS / 1000} s until the controller fences it, then the producer's retry outlasts it: the send is written by the new leader`, async () => {
    const { answer, error, producedTo } = await sendWhileFenced(bridgeProducerConfig().retry);
    expect(error).toBeUndefined();
    expect(answer?.map((a) => a.partition)).toEqual([2]);
    expect(producedTo).toEqual([{ nodeId: 1, partition: 2 }]);
  });

  it("the outbox's producers (both modes) give a write up within 2 s of waits and leave the next try to the outbox, which checks the lease first", async () => {
    const configs = await outboxProducerConfigs();
    expect(configs.map((config) => config.retry)).toEqual([OUTBOX_RETRY, OUTBOX_RETRY]);
    expect(longestRetryWaitMs(OUTBOX_RETRY)).toBeLessThan(2_000);
  });

  it('the producers and the admin set every field of their retry, the same as the group consumer, so neither NODE_ENV nor a client-wide retry decides how long they try', async () => {
    const consumer = bridgeConsumerConfig().retry;
    expect(Object.keys(consumer ?? {}).sort()).toEqual(
      ['factor', 'initialRetryTime', 'maxRetryTime', 'multiplier', 'retries'].sort(),
    );
    expect(bridgeProducerConfig().retry).toEqual(consumer);
    expect((await bridgeAdminConfig()).retry).toEqual(consumer);
  });
});
