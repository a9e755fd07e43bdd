import { createServer, type Server } from 'node:net';
import type { Kafka } from 'kafkajs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TopicsLeaderless } from '../errors.js';
import {
  askEveryBroker,
  type BrokerAnswer,
  lacking,
  pinnedSocket,
  untilEveryBrokerLists,
} from './topic-agreement.js';

const led = (name: string, leaders: number[]) => ({
  name,
  partitions: leaders.map((leader) => ({ leader })),
});

describe('lacking', () => {
  it('when every broker lists every topic with a leader for each partition, then nothing lacks', () => {
    const answers: BrokerAnswer[] = [1, 2, 3].map((id) => ({
      who: `broker ${id}`,
      topics: [led('a', [1, 2]), led('b', [3])],
    }));
    expect(lacking(['a', 'b'], answers)).toEqual(new Map());
  });

  it('when a broker does not list a topic, lists one without a leader or answered an error, then each is named with what it lacks', () => {
    const answers: BrokerAnswer[] = [
      { who: 'broker 1', topics: [led('a', [1, 2]), led('b', [3])] },
      { who: 'broker 2', topics: [led('a', [1, -1])] },
      { who: 'broker 3', error: 'This server does not host this topic-partition' },
    ];
    expect(lacking(['a', 'b'], answers)).toEqual(
      new Map([
        ['broker 2', 'does not list b; has no leader yet for a partition of a'],
        ['broker 3', 'answered "This server does not host this topic-partition"'],
      ]),
    );
  });

  it('when a broker lists a topic with no partitions, then it counts as not listed', () => {
    expect(lacking(['a'], [{ who: 'broker 1', topics: [led('a', [])] }])).toEqual(
      new Map([['broker 1', 'does not list a']]),
    );
  });
});

describe('untilEveryBrokerLists', () => {
  it('when the brokers come to list the topics one after another, then it resolves once all do, having asked again meanwhile', async () => {
    let round = 0;
    const ask = vi.fn(async (): Promise<BrokerAnswer[]> => {
      round++;
      return [1, 2, 3].map((id) =>
        id <= round
          ? { who: `broker ${id}`, topics: [led('a', [1])] }
          : { who: `broker ${id}`, error: 'This server does not host this topic-partition' },
      );
    });
    await untilEveryBrokerLists(['a'], ask);
    expect(ask).toHaveBeenCalledTimes(3);
  });

  it('when no broker answers at all, then that is not agreement', async () => {
    const ask = vi.fn(async (): Promise<BrokerAnswer[]> => []);
    await expect(untilEveryBrokerLists(['a'], ask, 120)).rejects.toThrow('no broker answered');
  });

  it('when a broker never lists them, then it rejects after the bound, retryable, naming the broker, what it lacks and what to check', async () => {
    const ask = async (): Promise<BrokerAnswer[]> => [
      { who: 'broker 1', topics: [led('a', [1])] },
      { who: 'broker 2', topics: [] },
    ];
    const waited = untilEveryBrokerLists(['a'], ask, 150);
    await expect(waited).rejects.toBeInstanceOf(TopicsLeaderless);
    await expect(waited).rejects.toMatchObject({
      retryable: true,
      details: { topics: ['a'] },
      message: expect.stringMatching(/broker 2 does not list a.*TOPIC_REPLICATION_FACTOR/),
    });
  });

  it('when no topic is asked for, then nothing is asked', async () => {
    const ask = vi.fn(async (): Promise<BrokerAnswer[]> => []);
    await untilEveryBrokerLists([], ask);
    expect(ask).not.toHaveBeenCalled();
  });
});

describe('askEveryBroker', () => {
  it('when each broker is asked, then each through a client of its own, and a refusal is its answer, every client disconnected', async () => {
    const made: Array<{ nodeId: number; disconnect: ReturnType<typeof vi.fn> }> = [];
    const clientAt = (broker: { nodeId: number }) =>
      ({
        admin: () => {
          const admin = {
            connect: async () => {},
            disconnect: vi.fn(async () => {}),
            fetchTopicMetadata: async () => {
              if (broker.nodeId === 2)
                throw new Error('This server does not host this topic-partition');
              return { topics: [led('a', [broker.nodeId])] };
            },
          };
          made.push({ nodeId: broker.nodeId, disconnect: admin.disconnect });
          return admin;
        },
      }) as unknown as Kafka;
    const brokers = [1, 2].map((nodeId) => ({ nodeId, host: 'localhost', port: 9000 + nodeId }));
    const answers = await askEveryBroker(clientAt, brokers, ['a']);
    expect(answers).toEqual([
      { who: 'broker 1', topics: [led('a', [1])] },
      { who: 'broker 2', error: 'This server does not host this topic-partition' },
    ]);
    expect(made.map((m) => m.disconnect.mock.calls.length)).toEqual([1, 1]);
  });
});

describe('pinnedSocket', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  it('when kafkajs opens a connection to any host, then it reaches the one broker pinned', async () => {
    const reached: string[] = [];
    const listen = (name: string) =>
      new Promise<number>((resolve) => {
        const server = createServer((socket) => {
          reached.push(name);
          socket.end();
        });
        servers.push(server);
        server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
      });
    const [, pinnedPort] = await Promise.all([listen('other'), listen('pinned')]);
    const factory = pinnedSocket({ nodeId: 2, host: '127.0.0.1', port: pinnedPort });
    await new Promise<void>((resolve, reject) => {
      const socket = factory({
        host: 'kafka-1.example',
        port: 9092,
        ssl: undefined as never,
        onConnect: () => {
          socket.end();
          resolve();
        },
      });
      socket.on('error', reject);
    });
    await vi.waitFor(() => expect(reached).toEqual(['pinned']));
  });
});
