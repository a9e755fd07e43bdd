/**
 * A command topic grown while the bridge runs, at the real broker: its partitions no longer match
 * the ledger's, so the bridge stops consuming the command topics, turns not ready, and says in
 * one line what to do; then what it says works: with the bridge stopped, `topics grow` brings the
 * ledger to the command topics' count and moves the entries, and after a restart the commands
 * written to the new partitions meanwhile run, their bizIds' dedup and contracts kept.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { topicNames } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  type InProcessBridge,
  keyOnPartition,
  startBridge,
  TEST_PARTITIONS,
  uniquePrefix,
} from '../support/bridge-harness.js';
import { cli, killAll } from '../support/cli-process.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { untilSettled } from '../support/settled.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const prefix = uniquePrefix();
const topics = topicNames(prefix);
const GROWN = TEST_PARTITIONS * 2;
// One bizId on each new partition: under GROWN its ledger entry belongs there, not where it is.
const bizIds = Array.from({ length: GROWN - TEST_PARTITIONS }, (_, n) =>
  keyOnPartition('grown', TEST_PARTITIONS + n, GROWN),
);
// And one on an old partition, which keeps its number: the held bridge still runs its commands.
const staying = keyOnPartition('staying', 0, GROWN);
const lines: Array<{ level: number; msg: string; code?: string; err?: { details?: unknown } }> = [];
let sim: RunningSimulator;
let collector: EventCollector;
let bridge: InProcessBridge | undefined;
let creates: Awaited<ReturnType<typeof commands.createContract>>[];

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  const log = pino(
    { level: 'warn' },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  );
  bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    log,
    settings: { partitionCheckMs: 200 },
  });
  creates = await Promise.all([...bizIds, staying].map((bizId) => commands.createContract(bizId)));
  await send(creates);
  await collector.waitForTerminalEvents(creates.map((c) => c.command.commandId));
  await untilSettled({ brokers, groupId: bridge.settings.groupId, topics, collector });
});

afterAll(async () => {
  killAll();
  await bridge?.stop();
  await collector?.stop();
  await sim?.stop();
});

/** Through a producer of its own, so murmur2 places by the counts the topics have now. */
async function send(records: Parameters<CommandSender['send']>[0]) {
  const sender = await CommandSender.connect(brokers, topics);
  try {
    await sender.send(records);
  } finally {
    await sender.close();
  }
}

async function endOffsets(topic: string): Promise<number[]> {
  const admin = harnessKafkaClient(brokers).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.sort((a, b) => a.partition - b.partition).map(({ high }) => Number(high));
  } finally {
    await admin.disconnect();
  }
}

describe('partition counts changed while running', () => {
  it('when the command topics alone are grown, then the bridge stops consuming their new partitions, is not ready, and logs one line saying what to do', async () => {
    expect(bridge?.bridge.ready).toBe(true);
    const admin = harnessKafkaClient(brokers).admin();
    await admin.connect();
    await admin.createPartitions({
      topicPartitions: Object.values(topics.commands).map((topic) => ({ topic, count: GROWN })),
    });
    await admin.disconnect();

    await waitUntil(() => bridge?.bridge.ready, { what: 'not ready', until: (ready) => !ready });
    const said = await waitUntil(
      () => lines.filter((line) => line.code === 'SB_ERR_KAFKA_TOPICS_REPARTITIONED'),
      { what: 'the log line', until: (found) => found.length > 0 },
    );
    expect(said).toHaveLength(1);
    expect(said[0]?.level).toBe(50);
    expect(said[0]?.msg).toContain('topic partitions changed while running');
    expect(said[0]?.msg).toContain(`${topics.commands.remind} ${TEST_PARTITIONS} -> ${GROWN}`);
    expect(said[0]?.msg).toContain(`signing-bridge topics grow --partitions ${GROWN}`);
  });

  it('when commands went to the new partitions, then those on the old ones still run; topics grow, the bridge stopped, grows the ledger alone and moves the entries, and after a restart the held ones run with their bizIds’ dedup and contracts kept', async () => {
    const groupId = bridge?.settings.groupId ?? '';
    const documents = await Promise.all(bizIds.map((bizId) => commands.addDocument(bizId, 'new')));
    const drained = await commands.addDocument(staying, 'drained');
    await send(creates.slice(0, bizIds.length)); // replays: duplicates only if each entry followed
    await send([...documents, drained]);
    const onNew = (ends: number[]) => ends.slice(TEST_PARTITIONS).every((end) => end === 1);
    expect(onNew(await endOffsets(topics.commands['add-document']))).toBe(true);
    expect(onNew(await endOffsets(topics.commands['create-contract']))).toBe(true);
    const ran = await collector.waitForTerminalEvent(drained.command.commandId);
    expect(ran.event.type).toBe('signingbridge.document.added');
    expect(bridge?.bridge.ready).toBe(false);
    await bridge?.stop();

    const grow = cli(['topics', 'grow', '--partitions', String(GROWN)], {
      KAFKA_BROKERS: brokers.join(','),
      TOPIC_PREFIX: prefix,
      KAFKA_GROUP_ID: groupId,
    });
    expect(await grow.exit).toBe(0);
    expect(grow.output.stdout).toContain(`grew ${topics.ledger} to ${GROWN} partitions`);
    expect(grow.output.stdout).toContain(`moved ${bizIds.length} ledger entries`);

    bridge = await startBridge({ brokers, topics, simulatorUrl: sim.url, settings: { groupId } });
    await collector.waitForTerminalEvents(documents.map((d) => d.command.commandId));
    for (const { command } of documents) {
      expect(collector.terminalEventsOf(command.commandId)[0]?.event.type).toBe(
        'signingbridge.document.added',
      );
    }
    await untilSettled({ brokers, groupId, topics, collector });
    for (const { command } of creates) {
      expect(collector.terminalEventsOf(command.commandId)).toHaveLength(1);
    }
    const drafts = await sim.admin.calls({ operation: 'createDraft' });
    for (const bizId of bizIds) expect(drafts.filter((c) => c.bizId === bizId)).toHaveLength(1);
  });
});
