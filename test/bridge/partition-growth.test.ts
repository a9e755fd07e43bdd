/**
 * A command topic grown while the bridge runs, at the real broker: its partitions no longer match
 * the ledger's, so the bridge stops consuming the command topics, turns not ready, and says in
 * one line what to do.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  createTopics,
  type InProcessBridge,
  startBridge,
  TEST_PARTITIONS,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const lines: Array<{ level: number; msg: string; code?: string; err?: { details?: unknown } }> = [];
let sim: RunningSimulator;
let bridge: InProcessBridge | undefined;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics);
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
});

afterAll(async () => {
  await bridge?.stop();
  await sim?.stop();
});

describe('partition counts changed while running', () => {
  it('when the command topics alone are grown, then the bridge stops consuming them, is not ready, and logs one line saying what to do', async () => {
    expect(bridge?.bridge.ready).toBe(true);
    const admin = harnessKafkaClient(brokers).admin();
    await admin.connect();
    const grown = TEST_PARTITIONS + 2;
    await admin.createPartitions({
      topicPartitions: Object.values(topics.commands).map((topic) => ({ topic, count: grown })),
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
    expect(said[0]?.msg).toContain(`${topics.commands.remind} ${TEST_PARTITIONS} -> ${grown}`);
    expect(said[0]?.msg).toContain('set TOPIC_PARTITIONS');
  });
});
