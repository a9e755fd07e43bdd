import { createRequire } from 'node:module';
import { KafkaJSProtocolError, type Message, type RecordMetadata } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { KafkaWriteFailed } from '../errors.js';
import { type BatchSend, sendCovering, type TopicMessage } from './covering-send.js';

// kafkajs' own produce path, read (never changed) to reproduce its defect: a unit test drives
// it with a cluster of two fake brokers whose partition leadership moves mid-send.
const load = createRequire(import.meta.url);
const createSendMessages = load('kafkajs/src/producer/sendMessages.js') as (
  deps: unknown,
) => (args: unknown) => Promise<RecordMetadata[]>;
const createRetry = load('kafkajs/src/retry/index.js') as (options: unknown) => unknown;

interface ProduceArgs {
  topicData: Array<{
    topic: string;
    partitions: Array<{ partition: number; messages: Message[]; firstSequence: number }>;
  }>;
}

/** A broker's retriable refusal, as kafkajs raises it. */
const refusal = (type: string, code: number, message: string) =>
  new KafkaJSProtocolError(Object.assign(new Error(message), { type, code, retriable: true }));
const notLeader = () =>
  refusal('NOT_LEADER_FOR_PARTITION', 6, 'This server is not the leader for that topic-partition');
const notEnoughReplicas = () =>
  refusal(
    'NOT_ENOUGH_REPLICAS',
    19,
    'Messages are rejected since there are fewer in-sync replicas',
  );

/**
 * kafkajs' own sendMessages over a cluster of two fake brokers leading topic `t`'s partitions as
 * `leaders` says; `refuses(nodeId, call)` may move leaders and throw a broker's refusal of that
 * call, else the broker writes what it is sent (kept in `written`, with each partition's first
 * sequence number: the producer's, counted and taken back as kafkajs does).
 */
function sendMessagesOver(
  leaders: Record<number, number>,
  refuses: (nodeId: number, call: number) => Error | undefined,
) {
  const written: Array<{ broker: number; partition: number; values: string[]; sequence: number }> =
    [];
  const calls = new Map<number, number>();
  const broker = (nodeId: number) => ({
    nodeId,
    produce: vi.fn(async ({ topicData }: ProduceArgs) => {
      const call = (calls.get(nodeId) ?? 0) + 1;
      calls.set(nodeId, call);
      const refusal = refuses(nodeId, call);
      if (refusal) throw refusal;
      for (const { partition, messages, firstSequence } of topicData.flatMap((t) => t.partitions)) {
        written.push({
          broker: nodeId,
          partition,
          values: messages.map((m) => String(m.value)),
          sequence: firstSequence,
        });
      }
      return {
        topics: topicData.map(({ topic, partitions: ps }) => ({
          topicName: topic,
          partitions: ps.map(({ partition }) => ({ partition, errorCode: 0, baseOffset: '0' })),
        })),
      };
    }),
  });
  const brokers = new Map([1, 2].map((id) => [id, broker(id)]));
  const cluster = {
    targetTopics: new Set<string>(),
    isConnected: () => true,
    refreshMetadata: async () => {},
    refreshMetadataIfNecessary: async () => {},
    addMultipleTargetTopics: async () => {},
    findTopicPartitionMetadata: () =>
      [0, 1].map((partitionId) => ({ partitionId, leader: leaders[partitionId] })),
    findLeaderForPartitions: (_topic: string, partitions: string[]) => {
      const byLeader: Record<number, number[]> = {};
      for (const p of partitions.map(Number)) {
        const leader = leaders[p] as number;
        byLeader[leader] = [...(byLeader[leader] ?? []), p];
      }
      return byLeader;
    },
    findBroker: async ({ nodeId }: { nodeId: number }) => brokers.get(Number(nodeId)),
  };
  const sequences = new Map<string, number>();
  const eosManager = {
    isTransactional: () => false,
    acquireBrokerLock: async () => {},
    releaseBrokerLock: async () => {},
    getSequence: (topic: string, partition: number) => sequences.get(`${topic}/${partition}`) ?? 0,
    updateSequence: (topic: string, partition: number, increment: number) => {
      const slot = `${topic}/${partition}`;
      sequences.set(slot, (sequences.get(slot) ?? 0) + increment);
    },
    getProducerId: () => -1,
    getProducerEpoch: () => 0,
  };
  const logger = { debug() {}, error() {}, warn() {}, info() {} };
  const sendMessages = createSendMessages({
    logger,
    cluster,
    eosManager,
    partitioner: ({ message }: { message: Message }) => message.partition,
    retrier: createRetry({ retries: 3, initialRetryTime: 1, maxRetryTime: 5 }),
  });
  const send: BatchSend = ({ topicMessages }) =>
    sendMessages({ acks: -1, timeout: 1_000, topicMessages });
  return { send, written };
}

/**
 * Topic `t`: partition 0 led by broker 1, partition 1 by broker 2. Broker 2 is shutting down:
 * it refuses the request as no longer the leader, partition 1 having moved to broker 1, which
 * answers for partition 0 meanwhile.
 */
function clusterWhereALeaderMoves() {
  const leaders: Record<number, number> = { 0: 1, 1: 2 };
  return sendMessagesOver(leaders, (nodeId) => {
    if (nodeId !== 2) return undefined;
    leaders[1] = 1;
    return notLeader();
  });
}

/**
 * Topic `t`: partition 0 led by broker 1, partition 1 by broker 2. Broker 1 writes partition 0
 * and answers as its leadership moves to broker 2 (broker 1 shutting down); broker 2 refuses its
 * first request (a retriable refusal: its replicas not in sync yet), so kafkajs retries, and
 * broker 2, without an answer, now leads both partitions.
 */
function clusterWhereAnAnsweredPartitionMoves() {
  const leaders: Record<number, number> = { 0: 1, 1: 2 };
  return sendMessagesOver(leaders, (nodeId, call) => {
    if (nodeId === 1) leaders[0] = 2;
    return nodeId === 2 && call === 1 ? notEnoughReplicas() : undefined;
  });
}

const messages: TopicMessage[] = [
  { topic: 't', message: { key: 'a', value: 'to-0', partition: 0 } },
  { topic: 't', message: { key: 'b', value: 'to-1', partition: 1 } },
];

const partitionOf = (message: Message) => message.partition;

describe('sendCovering', () => {
  it("kafkajs 2.2.4 alone: when a partition's leader moves to a broker that already answered, the send resolves without having written it", async () => {
    const { send, written } = clusterWhereALeaderMoves();
    const answers = await send({
      topicMessages: [{ topic: 't', messages: messages.map((m) => m.message) }],
    });
    expect(answers.map((a) => a.partition)).toEqual([0]);
    expect(written.map((w) => w.partition)).toEqual([0]);
  });

  it("when a partition's leader moves to a broker that already answered, then the partition is sent to it again and every record is written once", async () => {
    const { send, written } = clusterWhereALeaderMoves();
    const answers = await sendCovering(messages, partitionOf, send);
    expect(answers.map((a) => a.partition).sort()).toEqual([0, 1]);
    expect(written.map(({ sequence: _, ...w }) => w)).toEqual([
      { broker: 1, partition: 0, values: ['to-0'] },
      { broker: 1, partition: 1, values: ['to-1'] },
    ]);
  });

  it('when every partition is answered at once, then nothing is sent again', async () => {
    const send = vi.fn<BatchSend>(async ({ topicMessages }) =>
      topicMessages.flatMap(({ topic, messages: ms }) =>
        [...new Set(ms.map((m) => m.partition))].map((partition) => ({
          topicName: topic,
          partition: partition as number,
          errorCode: 0,
        })),
      ),
    );
    await sendCovering(messages, partitionOf, send);
    expect(send).toHaveBeenCalledOnce();
  });

  it('when a partition is never answered, then the send rejects, retryable, naming it, after three more sends', async () => {
    const send = vi.fn<BatchSend>(async () => [{ topicName: 't', partition: 0, errorCode: 0 }]);
    const sent = sendCovering(messages, partitionOf, send);
    await expect(sent).rejects.toBeInstanceOf(KafkaWriteFailed);
    await expect(sent).rejects.toMatchObject({
      retryable: true,
      message: expect.stringContaining('t/1'),
    });
    expect(send).toHaveBeenCalledTimes(4);
    expect(send.mock.calls.slice(1).map(([batch]) => batch.topicMessages)).toEqual(
      Array(3).fill([{ topic: 't', messages: [messages[1]?.message] }]),
    );
  });

  it("when the partitioner chose a message's partition, then a resend fixes it to that partition", async () => {
    const chosen = new WeakMap<Message, number>();
    const keyed: TopicMessage = { topic: 't', message: { key: 'k', value: 'v' } };
    chosen.set(keyed.message, 1);
    const send = vi
      .fn<BatchSend>()
      .mockResolvedValueOnce([])
      .mockResolvedValueOnce([{ topicName: 't', partition: 1, errorCode: 0 }]);
    await sendCovering([keyed], (m) => m.partition ?? chosen.get(m), send);
    expect(send.mock.calls[1]?.[0].topicMessages[0]?.messages[0]).toMatchObject({ partition: 1 });
  });
});

describe('sendCovering in a transaction', () => {
  it('kafkajs 2.2.4 alone: when a partition already answered moves to a broker whose request failed, the send writes it again there, with the next sequence numbers (a broker takes them as new records), and answers for it twice', async () => {
    const { send, written } = clusterWhereAnAnsweredPartitionMoves();
    const answers = await send({
      topicMessages: [{ topic: 't', messages: messages.map((m) => m.message) }],
    });
    expect(answers.map((a) => a.partition).sort()).toEqual([0, 0, 1]);
    expect(written.filter((w) => w.partition === 0)).toEqual([
      { broker: 1, partition: 0, values: ['to-0'], sequence: 0 },
      { broker: 2, partition: 0, values: ['to-0'], sequence: 1 },
    ]);
  });

  it('when a partition is answered twice (written twice), then the send rejects, retryable, naming it, so that the transaction is aborted rather than committed', async () => {
    const { send } = clusterWhereAnAnsweredPartitionMoves();
    const sent = sendCovering(messages, partitionOf, send, { transactional: true });
    await expect(sent).rejects.toBeInstanceOf(KafkaWriteFailed);
    await expect(sent).rejects.toMatchObject({
      retryable: true,
      details: { kafkaError: 'PartitionsWrittenTwice' },
      message: expect.stringContaining('written twice to t/0'),
    });
  });

  it('when a partition is missing from the answer, then the send rejects, retryable, without sending it again inside the transaction', async () => {
    const send = vi.fn<BatchSend>(async () => [{ topicName: 't', partition: 0, errorCode: 0 }]);
    const sent = sendCovering(messages, partitionOf, send, { transactional: true });
    await expect(sent).rejects.toMatchObject({
      retryable: true,
      details: { kafkaError: 'PartitionsNotAcknowledged' },
      message: expect.stringContaining('not acknowledged for t/1'),
    });
    expect(send).toHaveBeenCalledOnce();
  });

  it('when every partition is answered once, then it resolves with the answers', async () => {
    const send = vi.fn<BatchSend>(async () => [
      { topicName: 't', partition: 0, errorCode: 0 },
      { topicName: 't', partition: 1, errorCode: 0 },
    ]);
    const answers = await sendCovering(messages, partitionOf, send, { transactional: true });
    expect(answers).toHaveLength(2);
  });
});
