/**
 * `signing-bridge topics grow` as a process against the real broker: refused while the group
 * runs; with the group stopped, the command topics and the ledger grow together and each ledger
 * entry follows its bizId (a second run, every topic at N already, is accepted and moves what is
 * left, here nothing), so after a restart the replays of old commands are still duplicates and
 * later commands find their contracts.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { kafkaToolsOver, keyPartition } from '../../src/kafka/index.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  startBridge,
  TEST_PARTITIONS,
  uniquePrefix,
} from '../support/bridge-harness.js';
import { cli, killAll } from '../support/cli-process.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { untilSettled } from '../support/settled.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const prefix = uniquePrefix();
const topics = topicNames(prefix);
const groupId = uniqueId('grow');
const GROWN = TEST_PARTITIONS * 2;
let sim: RunningSimulator;
let sender: CommandSender;
let collector: EventCollector;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
});

afterAll(async () => {
  killAll();
  await collector?.stop();
  await sender?.close();
  await sim?.stop();
});

function grow() {
  return cli(['topics', 'grow', '--partitions', String(GROWN)], {
    KAFKA_BROKERS: brokers.join(','),
    TOPIC_PREFIX: prefix,
    KAFKA_GROUP_ID: groupId,
  });
}

/** The members `topics grow` counts before it refuses as group-active. */
async function groupMembers(id: string): Promise<number> {
  const admin = await kafkaToolsOver(harnessKafkaClient(brokers)).clusterAdmin();
  try {
    return await admin.groupMembers(id);
  } finally {
    await admin.disconnect();
  }
}

describe('signing-bridge topics grow', () => {
  it('when the group runs, then grow is refused; stopped, every topic grows, run again it only completes the entries’ move, and each bizId keeps its dedup and its contract on its new partition', async () => {
    // Enough bizIds that some move: murmur2 modulo 8 differs from modulo 4 for about half.
    const bizIds = Array.from({ length: 8 }, () => uniqueId('grow'));
    expect(bizIds.some((b) => keyPartition(Buffer.from(b), GROWN) >= TEST_PARTITIONS)).toBe(true);
    const creates = await Promise.all(bizIds.map((bizId) => commands.createContract(bizId)));
    const before = await startBridge({
      brokers,
      topics,
      simulatorUrl: sim.url,
      settings: { groupId },
    });
    await sender.send(creates);
    await collector.waitForTerminalEvents(creates.map((c) => c.command.commandId));
    const refused = grow();
    expect(await refused.exit).toBe(1);
    expect(refused.output.stdout + refused.output.stderr).toContain(
      'SB_ERR_KAFKA_TOPICS_GROW_REFUSED',
    );
    await untilSettled({ brokers, groupId, topics, collector });
    await before.stop();
    // As an operator would: grow once the broker lists no member (a member that could not
    // leave, in a rejoin at the stop, stays listed until its session ends).
    await waitUntil(() => groupMembers(groupId), {
      until: (members) => members === 0,
      what: `group ${groupId} without members`,
    });

    const grown = grow();
    // With its output, so that a refusal says why.
    expect({ exit: await grown.exit, ...grown.output }).toMatchObject({ exit: 0 });
    expect(grown.output.stdout).toContain(`to ${GROWN} partitions`);
    const again = grow(); // as after a run cut off once every topic had grown
    expect(await again.exit).toBe(0);
    expect(again.output.stdout).toContain(
      `had ${GROWN} partitions already; moved 0 ledger entries`,
    );

    const after = await startBridge({
      brokers,
      topics,
      simulatorUrl: sim.url,
      settings: { groupId },
    });
    try {
      const documents = await Promise.all(
        bizIds.map((bizId) => commands.addDocument(bizId, 'after')),
      );
      await sender.send(creates); // replays, now placed on the new partitions
      await sender.send(documents);
      await collector.waitForTerminalEvents(documents.map((d) => d.command.commandId));
      for (const { command } of documents) {
        expect(collector.terminalEventsOf(command.commandId)[0]?.event.type).toBe(
          'signingbridge.document.added',
        );
      }
      await untilSettled({ brokers, groupId, topics, collector });
    } finally {
      await after.stop();
    }
    for (const { command } of creates) {
      expect(collector.terminalEventsOf(command.commandId)).toHaveLength(1);
    }
    const drafts = await sim.admin.calls({ operation: 'createDraft' });
    for (const bizId of bizIds) expect(drafts.filter((c) => c.bizId === bizId)).toHaveLength(1);
  });
});
