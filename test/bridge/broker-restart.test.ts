/**
 * The broker restarted in the middle of a stream of commands, on a broker of this test's own
 * (the shared one stays up for the other files): the bridge turns not ready while the broker is
 * gone and ready again once it consumes; every command ends and every command partition's
 * committed offset catches up with its finished commands, without new records arriving there;
 * and again after a graceful stop.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalKafka, startLocalKafka } from '../../scripts/local-kafka/broker.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  type InProcessBridge,
  startBridge,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { uncommitted, untilCommitted } from '../support/settled.js';
import { waitUntil } from '../support/wait.js';

const topics = uniqueTopics();
let dataDir: string;
let kafka: LocalKafka;
let port: number;
let sim: RunningSimulator;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'restart-kafka-'));
  kafka = await startLocalKafka({ dataDir });
  port = Number(kafka.brokers[0]?.split(':')[1]);
  sim = await startSimulator({ log: false, faults: { latency: { minMs: 5, maxMs: 20 } } });
  await createTopics(kafka.brokers, topics);
});

afterAll(async () => {
  await kafka?.stop();
  await sim?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a broker restart mid-stream', () => {
  it('when the broker is gone, then the bridge turns not ready; when it comes back, the bridge is ready again, every command ends and every partition commits up to its finished commands, also at a graceful stop', async () => {
    const bridge: InProcessBridge = await startBridge({
      brokers: kafka.brokers,
      topics,
      simulatorUrl: sim.url,
      settings: { readinessTimeoutMs: 3_000 },
    });
    expect(bridge.bridge.ready).toBe(true);
    const { groupId } = bridge.settings;
    const sender = await CommandSender.connect(kafka.brokers, topics);
    const creates = await Promise.all(
      Array.from({ length: 240 }, (_, i) => commands.createContract(`restart-${i}-${Date.now()}`)),
    );
    await sender.send(creates);
    await sender.close();

    await kafka.stop();
    await waitUntil(() => bridge.bridge.ready, {
      until: (ready) => !ready,
      what: 'not ready while the broker is gone',
      timeoutMs: 60_000,
    });
    kafka = await startLocalKafka({ dataDir, port });

    const collector = await EventCollector.start(kafka.brokers, topics);
    await collector.waitForTerminalEvents(
      creates.map((c) => c.command.commandId),
      120_000,
    );
    await untilCommitted(kafka.brokers, groupId, topics);
    await waitUntil(() => bridge.bridge.ready, {
      what: 'ready again once consuming',
      timeoutMs: 60_000,
    });

    await bridge.stop();
    expect(await uncommitted(kafka.brokers, groupId, topics)).toEqual([]);
    await collector.stop();
  }, 180_000);
});
