/**
 * The bridge killed with SIGKILL in the middle of a few thousand commands, then started again:
 * every command still ends in exactly one terminal event, and no bizId gets a second draft.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { topicNames } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  BridgeProcess,
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  uniquePrefix,
} from '../support/bridge-harness.js';
import {
  assertAddedInOrder,
  assertExactlyOneTerminalEach,
  assertOneDraftEach,
  type Workload,
  workload,
} from './workload.js';

const brokers = inject('kafkaBrokers').split(',');
const prefix = uniquePrefix();
const topics = topicNames(prefix);
const groupId = `crash-${randomUUID().slice(0, 8)}`;
let sim: RunningSimulator;
let sender: CommandSender;
let collector: EventCollector;
const processes: BridgeProcess[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    log: false,
    callLogLimit: 500_000,
    faults: { latency: { minMs: 1, maxMs: 8 } },
  });
  await createTopics(brokers, topics, 8);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
});

afterAll(async () => {
  for (const bridge of processes) bridge.kill('SIGKILL');
  await collector?.stop();
  await sender?.close();
  await sim?.stop();
});

// The restart waits out the dead member's session: commands racing their create must outlast it.
const ENV = { PRECONDITION_TIMEOUT_MS: '60000', PRECONDITION_MAX_DELAY_MS: '1000' };

const start = async () => {
  const bridge = await BridgeProcess.start({
    brokers,
    prefix,
    groupId,
    simulatorUrl: sim.url,
    env: ENV,
  });
  processes.push(bridge);
  return bridge;
};

it('when the bridge is killed mid-stream and restarted, then every command ends in exactly one terminal event and no bizId gets a second draft', async () => {
  const load: Workload = await workload({ bizIds: 1_000, extraDocuments: 1_500, commands });
  const first = await start();
  await sender.send(load.racing);
  await sender.send(load.creates);
  await sender.send(load.following);
  const total = load.all.length;
  await collector.waitUntil(() => terminalCount() >= total * 0.4, 60_000, '40% of the commands');
  first.kill('SIGKILL');
  const endedAtKill = terminalCount();
  await first.exited;
  const restartedAt = Date.now();
  const second = await start();
  await collector.waitForTerminalEvents(load.commandIds, 120_000);
  const recoveryMs = Date.now() - restartedAt;
  // Late duplicates would show up now, if there were any.
  await new Promise((resolve) => setTimeout(resolve, 1_500));

  assertExactlyOneTerminalEach(collector, load.commandIds);
  await assertOneDraftEach(sim, load.bizIds);
  const { repeatedDocuments } = await assertAddedInOrder(sim, load);
  console.log(
    `[crash] ${total} commands; killed after ${endedAtKill} had ended; ` +
      `restart to the last end ${recoveryMs} ms; documents added twice (in doubt) ${repeatedDocuments}`,
  );

  second.kill('SIGTERM');
  expect(await second.exited).toBe(0);
  function terminalCount() {
    return collector.terminalCount;
  }
}, 240_000);
