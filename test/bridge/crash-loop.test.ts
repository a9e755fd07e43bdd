/**
 * A record that kills the process whenever it runs, against the bridge as it ships. The test is
 * the killer: the record's platform call hangs, and the process is killed (SIGKILL) while that
 * record is in hand, again while the next process recovers it (a crash loop), then each time it
 * runs alone. After CRASH_LOOP_LIMIT deaths while it runs alone it is dead-lettered
 * (command.rejected, SB_ERR_COMMAND_CRASH_LOOP) instead of run, once its last holder (killed: its
 * instance id never comes back to the group) is still gone SUSPECT_GRACE_MS after the take-over,
 * and the commands around it all complete: one poison record costs 2 + CRASH_LOOP_LIMIT
 * restarts, not the service.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IMAGE_NODE_OPTIONS } from '../../bench/support/image-node-options.js';
import { SUSPECT_GRACE_MS } from '../../src/partitions/crash-guard.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  BridgeProcess,
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  keyOnPartition,
  uniquePrefix,
} from '../support/bridge-harness.js';
import { TopicReader } from '../support/topic-reader.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const PARTITIONS = 2;
const LIMIT = 1;
const brokers = inject('kafkaBrokers').split(',');
const prefix = uniquePrefix();
const topics = topicNames(prefix);
const groupId = uniqueId('crash-loop');
let sim: RunningSimulator;
let sender: CommandSender;
let collector: EventCollector;
const running: BridgeProcess[] = [];
let ledger: TopicReader;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics, PARTITIONS);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  ledger = await TopicReader.start(brokers, [topics.ledger]);
});

afterAll(async () => {
  for (const bridge of running) bridge.kill('SIGKILL');
  await ledger?.stop();
  await collector?.stop();
  await sender?.close();
  await sim?.stop();
});

/** The careful runs of the poison's topic the bridge has written to the ledger so far. */
function poisonRuns(): Array<{ topic: string; offset: string; deaths: number }> {
  return ledger
    .keyed(' careful')
    .flatMap((record) => (record.value === null ? [] : [JSON.parse(record.value)]))
    .filter((run) => run.topic === topics.commands.initiate);
}

async function start(): Promise<BridgeProcess> {
  const bridge = await BridgeProcess.start({
    brokers,
    prefix,
    groupId,
    simulatorUrl: sim.url,
    env: {
      NODE_OPTIONS: IMAGE_NODE_OPTIONS,
      CRASH_LOOP_LIMIT: String(LIMIT),
      // Longer than the test: the poison's call never ends while a process runs it.
      SIGNING_CALL_TIMEOUT_MS: '600000',
      TOPIC_PARTITIONS: String(PARTITIONS),
    },
  });
  running.push(bridge);
  return bridge;
}

async function kill(bridge: BridgeProcess): Promise<void> {
  bridge.kill('SIGKILL');
  await bridge.exited;
}

/** Waits for a fact the test's own ledger consumer reports. */
/** Three create-contracts on the poison's partition, sent now. */
async function sendThree(name: string) {
  const creates = await Promise.all(
    Array.from({ length: 3 }, (_, i) =>
      commands.createContract(keyOnPartition(`${name}-${i}`, 0, PARTITIONS)),
    ),
  );
  await sender.send(creates);
  return creates;
}

describe('a record that kills the process whenever it runs', () => {
  it('is dead-lettered after CRASH_LOOP_LIMIT deaths while it runs alone, and the commands in hand with it complete', async () => {
    // The poison: its call never answers, so it is always in hand when the process is killed.
    // An initiation, since a call in doubt after a crash is made again only where the platform
    // can prove what happened (1101), so every run of the poison calls again and hangs again.
    await sim.admin.setFaults({
      script: [{ operation: 'initiateContract', kind: 'latency', times: 100, ms: 600_000 }],
    });
    const poisonBizId = keyOnPartition('poison', 0, PARTITIONS);
    const poison = { commandId: `poison-${randomUUID()}`, bizId: poisonBizId, payload: {} };
    await sender.send([{ type: 'initiate', command: poison as never }]);
    const before = await sendThree('before');

    let bridge = await start();
    await collector.waitForTerminalEvents(before.map((c) => c.command.commandId));
    // The poison is in hand, its call hanging: the first death, with many records in hand.
    await kill(bridge);

    // The next process recovers what that one had in hand, as usual: the others complete, the
    // poison hangs again, and it dies recovering: a crash loop.
    const after = await sendThree('after');
    bridge = await start();
    await collector.waitForTerminalEvents(after.map((c) => c.command.commandId));
    await kill(bridge);

    for (let deaths = 0; deaths < LIMIT; deaths++) {
      bridge = await start();
      await waitUntil(poisonRuns, {
        until: (runs) => runs.some((c) => c.deaths === deaths),
        what: `the poison running alone with ${deaths} deaths`,
        timeoutMs: 60_000,
      });
      await kill(bridge);
    }

    const last = await sendThree('last');
    bridge = await start();
    const rejection = () =>
      collector.events.find(
        (e) => e.event.type === 'signingbridge.command.rejected' && e.key === poisonBizId,
      );
    // The group drops the killed member (10 s), then its holder gets the grace to come back.
    const within = 60_000 + SUSPECT_GRACE_MS;
    await collector.waitUntil(() => rejection() !== undefined, within, 'the poison rejected');
    expect(rejection()?.data.error).toMatchObject({ code: 'SB_ERR_COMMAND_CRASH_LOOP' });
    await collector.waitForTerminalEvents(last.map((c) => c.command.commandId));
    const letter = () =>
      collector.deadLetters.find(
        (d) => d.headers['dlq-error-code'] === 'SB_ERR_COMMAND_CRASH_LOOP',
      );
    await collector.waitUntil(() => letter() !== undefined, 30_000, 'the dead letter');
    expect(letter()?.key).toBe(poisonBizId);
    expect(poisonRuns().map((c) => c.deaths)).toEqual([0]);

    await sim.admin.setFaults({});
    bridge.kill('SIGTERM');
    expect(await bridge.exited).toBe(0);
  }, 240_000);
});
