/**
 * The bridge killed with SIGKILL in the middle of a thousand commands, then started again:
 * every command still ends in exactly one terminal event, and no bizId gets a second draft. In
 * both delivery modes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { CONFIG } from '../../src/config/index.js';
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
import { untilSettled } from '../support/settled.js';
import { uniqueId } from '../support/unique.js';
import {
  assertAddedInOrder,
  assertExactlyOneTerminalEach,
  assertOneDraftEach,
  workload,
} from './workload.js';

const brokers = inject('kafkaBrokers').split(',');
let sim: RunningSimulator;
const cleanUp: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  sim = await startSimulator({
    log: false,
    callLogLimit: 500_000,
    faults: { latency: { minMs: 1, maxMs: 8 } },
  });
});

afterEach(async () => {
  for (const step of cleanUp.splice(0)) await step();
});

afterAll(async () => {
  await sim?.stop();
});

/**
 * What DELIVERY_MODE makes of `mode`, by the service's configuration table. Without the row the
 * variable would be ignored and both runs would test the default mode: that fails, not skips.
 */
function deliveryModeOf(mode: string): unknown {
  const row = CONFIG.find((variable) => variable.name === 'DELIVERY_MODE');
  if (row === undefined) throw new Error('the configuration has no DELIVERY_MODE variable');
  const parsed = row.schema.safeParse(mode);
  if (!parsed.success) throw new Error(`DELIVERY_MODE does not take ${mode}`);
  return parsed.data;
}

describe.each(['at-least-once', 'exactly-once'])('delivery mode %s', (mode) => {
  it('when the bridge is killed mid-stream and restarted, then every command ends in exactly one terminal event and no bizId gets a second draft', async () => {
    expect(deliveryModeOf(mode)).toBe(mode);
    const prefix = uniquePrefix();
    const topics = topicNames(prefix);
    await createTopics(brokers, topics, 8);
    const sender = await CommandSender.connect(brokers, topics);
    const collector = await EventCollector.start(brokers, topics);
    cleanUp.push(
      () => sender.close(),
      () => collector.stop(),
    );
    const groupId = uniqueId('crash');
    // The restart waits out the dead member's session (and, exactly-once, its open
    // transaction): commands racing their create must outlast that.
    const env = {
      DELIVERY_MODE: mode,
      PRECONDITION_TIMEOUT_MS: '60000',
    };
    const start = async () => {
      const bridge = await BridgeProcess.start({
        brokers,
        prefix,
        groupId,
        simulatorUrl: sim.url,
        env,
      });
      cleanUp.push(() => bridge.kill('SIGKILL'));
      return bridge;
    };

    const load = await workload({ bizIds: 400, extraDocuments: 600, commands });
    const first = await start();
    await sender.send(load.racing);
    await sender.send(load.creates);
    await sender.send(load.following);
    const total = load.all.length;
    await collector.waitUntil(() => collector.terminalCount >= total * 0.4, 60_000, '40% ended');
    first.kill('SIGKILL');
    const endedAtKill = collector.terminalCount;
    await first.exited;
    const restartedAt = Date.now();
    const second = await start();
    await collector.waitForTerminalEvents(load.commandIds, 120_000);
    const recoveryMs = Date.now() - restartedAt;
    // Settled: nothing will run again, and every event published so far, late duplicates
    // included, was read.
    await untilSettled({ brokers, groupId, topics, collector });

    const inDoubt = assertExactlyOneTerminalEach(collector, load.commandIds);
    await assertOneDraftEach(sim, load.bizIds);
    const { documentsInDoubt } = await assertAddedInOrder(sim, load, inDoubt);
    console.log(
      `[crash ${mode}] ${total} commands; killed after ${endedAtKill} had ended; ` +
        `restart to the last end ${recoveryMs} ms; commands ended outcome unknown ${inDoubt.size} (${documentsInDoubt} documents)`,
    );

    second.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 240_000);
});
