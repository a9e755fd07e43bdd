/**
 * The platform misbehaving against the bridge as it ships (`signing-bridge run` with the image's
 * heap limit): a wrong app secret pauses it and a restart with the right one sends every held
 * command exactly once; a 100 MB answer costs one command, not the process.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IMAGE_NODE_OPTIONS } from '../../bench/support/image-node-options.js';
import type { CommandType } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { meta, person } from '../handlers/support/fixtures.js';
import {
  BridgeProcess,
  CommandSender,
  createTopics,
  DEMO_CREDENTIALS,
  EventCollector,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { freePort } from '../support/service-pipeline.js';
import { untilSettled } from '../support/settled.js';
import { signingContracts } from '../support/signing-contracts.js';
import { waitUntil } from '../support/wait.js';

const PARTITIONS = 3;
const UNAVAILABLE = 'platform unavailable: consumption paused';
const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const prefix = topics.events.slice(0, -'events'.length);
const groupId = `outage-${Date.now()}`;
let sim: RunningSimulator;
let sender: CommandSender;
let collector: EventCollector;
let bridge: BridgeProcess | undefined;
let healthPort: number;

beforeAll(async () => {
  sim = await startSimulator({ log: false, callLogLimit: 100_000 });
  await createTopics(brokers, topics, PARTITIONS);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  healthPort = await freePort();
});

afterAll(async () => {
  await stopBridge();
  await collector?.stop();
  await sender?.close();
  await sim?.stop();
});

function startBridge(env: Record<string, string> = {}): Promise<BridgeProcess> {
  return BridgeProcess.start({
    brokers,
    prefix,
    groupId,
    simulatorUrl: sim.url,
    keep: [UNAVAILABLE],
    env: {
      NODE_OPTIONS: IMAGE_NODE_OPTIONS,
      TOPIC_PARTITIONS: String(PARTITIONS),
      HTTP_PORT: String(healthPort),
      ...env,
    },
  });
}

async function stopBridge(): Promise<void> {
  bridge?.kill('SIGTERM');
  await bridge?.exited;
  bridge = undefined;
}

async function send(type: CommandType, bizId: string, payload: unknown): Promise<string> {
  const command = { ...meta(bizId), payload };
  await sender.send([{ type, command: command as never }]);
  return command.commandId;
}

/** Successful calls of an operation the simulator applied, per bizId. */
async function applied(operation: string, bizIds: readonly string[]): Promise<number[]> {
  const calls = await sim.admin.calls({ operation });
  return bizIds.map((bizId) => calls.filter((c) => c.bizId === bizId && c.ok).length);
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

describe('a rotated secret', () => {
  it('when the bridge runs with a wrong app secret, then it pauses without failing a reminder; restarted with the right one, every reminder reaches the platform exactly once', async () => {
    const bizIds = await signingContracts(sim.url, 10, 'rotated');
    bridge = await startBridge({ SIGNING_APP_SECRET: 'not-the-secret' });
    const reminders: string[] = [];
    for (let i = 0; i < 100; i++) {
      reminders.push(await send('remind', bizIds[i % bizIds.length] as string, {}));
    }
    await waitUntil(() => bridge?.kept.length, { what: 'the outage logged' });
    expect(bridge.kept[0]).toMatchObject({ cause: 'auth', circuit: 'open' });
    expect(String(bridge.kept[0]?.hint)).toContain('SIGNING_APP_SECRET');
    expect(await metric('signing_bridge_platform_outage{cause="auth"}')).toBe(1);
    expect(reminders.filter((id) => collector.terminalEventsOf(id).length > 0)).toEqual([]);
    expect(await applied('remindSignatories', bizIds)).toEqual(bizIds.map(() => 0));

    await stopBridge();
    bridge = await startBridge({ SIGNING_APP_SECRET: DEMO_CREDENTIALS.appSecret });
    await collector.waitForTerminalEvents(reminders, 60_000);
    await untilSettled({ brokers, groupId, topics, collector });
    for (const commandId of reminders) {
      expect(collector.terminalEventsOf(commandId).map((e) => e.event.type)).toEqual([
        'signingbridge.reminder.sent',
      ]);
    }
    expect(await applied('remindSignatories', bizIds)).toEqual(bizIds.map(() => 10));
    for (const bizId of bizIds) {
      expect((await sim.admin.contract({ bizId })).reminders).toHaveLength(10);
    }
  });
});

describe('a huge answer', () => {
  it('when the platform answers 100 MB, then the process reads none of it past the limit, stays alive with one failure, and later commands complete', async () => {
    bridge ??= await startBridge();
    const [bizId, other] = await signingContracts(sim.url, 2, 'huge');
    await sim.admin.setFaults({
      script: [{ operation: 'addSignatory', kind: 'huge', times: 1, bytes: 100 * 1024 * 1024 }],
    });
    const added = await send('add-signatory', bizId as string, { signatory: person(5) });
    const ended = await collector.waitForTerminalEvent(added, 60_000);
    expect(ended.event.type).toBe('signingbridge.command.failed');
    expect(ended.data).toMatchObject({
      final: false,
      error: { code: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN' },
    });
    expect(String((ended.data as { error: { message: string } }).error.message)).toContain(
      'SB_ERR_RESPONSE_TOO_LARGE',
    );
    expect((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status).toBe(200);
    // The image's heap is 160 MB: the answer was never held whole.
    expect(await metric('process_resident_memory_bytes')).toBeLessThan(300 * 1024 * 1024);

    const later = [
      await send('remind', other as string, {}),
      await send('add-signatory', other as string, { signatory: person(6) }),
    ];
    await collector.waitForTerminalEvents(later, 30_000);
    expect(later.map((id) => collector.terminalEventsOf(id)[0]?.event.type)).toEqual([
      'signingbridge.reminder.sent',
      'signingbridge.signatory.added',
    ]);
  });
});
