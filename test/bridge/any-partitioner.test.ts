/**
 * Producers that do not partition by murmur2, on the real broker: librdkafka's default for
 * keyed records (CRC32 of the key, what Python, Go, .NET and kcat producers use unless told
 * otherwise) and a random one. A record found on another partition than its key's is forwarded
 * there, so replays are still skipped, one platform call is made per commandId, one terminal
 * event is published per commandId, and one producer's commands of a bizId keep their order.
 */
import { crc32 } from 'node:zlib';
import { type ICustomPartitioner, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BridgeObserver, CommandEnding } from '../../src/consumers/index.js';
import type { Command, CommandType } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  commands,
  createTopics,
  EventCollector,
  type InProcessBridge,
  startBridge,
  TEST_PARTITIONS,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { murmur2Partition } from '../support/partitions.js';
import { untilSettled } from '../support/settled.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

/** librdkafka's `consistent_random` for keyed records: CRC32 of the key. */
const crc32Partitioner: ICustomPartitioner =
  () =>
  ({ partitionMetadata, message }) =>
    crc32(Buffer.from(message.key ?? '')) % partitionMetadata.length;
const randomPartitioner: ICustomPartitioner =
  () =>
  ({ partitionMetadata }) =>
    Math.floor(Math.random() * partitionMetadata.length);

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const endings: CommandEnding[] = [];
let forwarded = 0;
let sim: RunningSimulator;
let collector: EventCollector;
let bridge: InProcessBridge;
const producers: Record<'crc32' | 'random' | 'murmur2', Producer> = {} as never;

const observer: BridgeObserver = {
  commandFinished: ({ outcome }) => endings.push(outcome),
  recordForwarded: () => {
    forwarded++;
  },
};

beforeAll(async () => {
  sim = await startSimulator({ log: false, callLogLimit: 100_000 });
  await createTopics(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  const kafka = harnessKafkaClient(brokers);
  for (const [name, createPartitioner] of [
    ['crc32', crc32Partitioner],
    ['random', randomPartitioner],
    ['murmur2', Partitioners.DefaultPartitioner],
  ] as const) {
    producers[name] = kafka.producer({ createPartitioner, allowAutoTopicCreation: false });
    await producers[name].connect();
  }
  bridge = await startBridge({ brokers, topics, simulatorUrl: sim.url, observer });
});

afterAll(async () => {
  await bridge?.stop();
  for (const producer of Object.values(producers)) await producer?.disconnect();
  await collector?.stop();
  await sim?.stop();
});

async function send(by: keyof typeof producers, type: CommandType, command: Command) {
  await producers[by].send({
    topic: topics.commands[type],
    messages: [{ key: command.bizId, value: JSON.stringify(command) }],
  });
}

/** A bizId that CRC32 puts on another partition than murmur2 does. */
function misplacedBizId(name: string): string {
  for (;;) {
    const bizId = uniqueId(name);
    const byCrc32 = crc32(Buffer.from(bizId)) % TEST_PARTITIONS;
    if (byCrc32 !== murmur2Partition(bizId, TEST_PARTITIONS)) return bizId;
  }
}

describe('producers partitioning by another hash than murmur2', () => {
  it('when a create-contract comes from a CRC32 producer and is replayed by it, a random producer and a murmur2 one, then one draft is made and one terminal event published', async () => {
    const creates = await Promise.all(
      Array.from({ length: 6 }, () => commands.createContract(misplacedBizId('crc'))),
    );
    const forwardedBefore = forwarded;
    for (const { command } of creates) await send('crc32', 'create-contract', command);
    await collector.waitForTerminalEvents(creates.map((c) => c.command.commandId));
    expect(forwarded - forwardedBefore).toBe(creates.length);

    const duplicates = endings.filter((e) => e === 'duplicate').length;
    for (const { command } of creates) {
      await send('crc32', 'create-contract', command);
      await send('random', 'create-contract', command);
      await send('murmur2', 'create-contract', command);
    }
    const expected = duplicates + creates.length * 3;
    await waitUntil(() => endings.filter((e) => e === 'duplicate').length, {
      until: (skipped) => skipped >= expected,
      what: `${expected} commands skipped as replays`,
      timeoutMs: 60_000,
    });
    // "Exactly one" holds only once nothing more can come: every record committed (none will run
    // again) and every event published so far read, a late duplicate included.
    await untilSettled({ brokers, groupId: bridge.settings.groupId, topics, collector });
    for (const { command } of creates) {
      expect(
        await sim.admin.calls({ operation: 'createDraft', bizId: command.bizId }),
      ).toHaveLength(1);
      expect(collector.terminalEventsOf(command.commandId)).toHaveLength(1);
    }
  });

  it('when one CRC32 producer sends a bizId its create-contract and then documents, then they are added in the order sent', async () => {
    const bizId = misplacedBizId('order');
    const create = await commands.createContract(bizId);
    await send('crc32', 'create-contract', create.command);
    await collector.waitForTerminalEvent(create.command.commandId);
    const adds = [];
    for (const title of ['doc-0', 'doc-1', 'doc-2', 'doc-3']) {
      const add = await commands.addDocument(bizId, title);
      adds.push(add);
      await send('crc32', 'add-document', add.command);
    }
    await collector.waitForTerminalEvents(adds.map((a) => a.command.commandId));
    const contract = await sim.admin.contract({ bizId });
    expect(contract.documents.map((d) => d.title)).toEqual(['doc-0', 'doc-1', 'doc-2', 'doc-3']);
  });
});
