/**
 * A new consumer group (a new KAFKA_GROUP_ID, a deleted group, offsets expired) reads the command
 * topics from the beginning, where records may be older than the ledger remembers. Here the
 * records are written with a timestamp two hours old and the bridge's replay window is one hour:
 * its ledger knows nothing of them, as after the sweep expired their entries. None reaches the
 * platform; a fresh record behind them runs.
 */
import { randomUUID } from 'node:crypto';
import { Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  commands,
  createTopics,
  EventCollector,
  type InProcessBridge,
  startBridge,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const HOUR = 3_600_000;
let sim: RunningSimulator;
let collector: EventCollector;
let producer: Producer;
let bridge: InProcessBridge | undefined;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  producer = harnessKafkaClient(brokers).producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
});

afterAll(async () => {
  await bridge?.stop();
  await producer?.disconnect();
  await collector?.stop();
  await sim?.stop();
});

describe('records older than the ledger vouches for', () => {
  it('when a new group reads create-contracts written before its replay window, then each is rejected as expired with a dead-letter copy and no platform call; a fresh one runs', async () => {
    const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
    const old = await Promise.all([1, 2, 3].map(() => commands.createContract(unique('stale'))));
    const fresh = await commands.createContract(unique('fresh'));
    const twoHoursAgo = String(Date.now() - 2 * HOUR);
    for (const [{ command }, timestamp] of [
      ...old.map((c) => [c, twoHoursAgo] as const),
      [fresh, undefined] as const,
    ]) {
      await producer.send({
        topic: topics.commands['create-contract'],
        messages: [{ key: command.bizId, value: JSON.stringify(command), timestamp }],
      });
    }

    bridge = await startBridge({
      brokers,
      topics,
      simulatorUrl: sim.url,
      settings: { ledgerReplayWindowMs: HOUR },
    });
    const oldIds = old.map((c) => c.command.commandId);
    await collector.waitForTerminalEvents([...oldIds, fresh.command.commandId]);

    expect(collector.terminalEventsOf(fresh.command.commandId)[0]?.event.type).toBe(
      'signingbridge.contract.created',
    );
    for (const commandId of oldIds) {
      expect(collector.terminalEventsOf(commandId)[0]?.data).toMatchObject({
        final: false,
        error: { code: 'SB_ERR_COMMAND_EXPIRED', retryable: false },
        source: { topic: topics.commands['create-contract'] },
      });
    }
    const oldBizIds = new Set(old.map((c) => c.command.bizId));
    const letters = await waitUntil(
      () => collector.deadLetters.filter((d) => d.key !== undefined && oldBizIds.has(d.key)),
      { what: 'three dead-letter copies', until: (found) => found.length === 3 },
    );
    expect(letters.map((d) => d.headers['dlq-error-code'])).toEqual(
      Array(3).fill('SB_ERR_COMMAND_EXPIRED'),
    );
    const drafts = await sim.admin.calls({ operation: 'createDraft' });
    expect(drafts.filter((call) => oldBizIds.has(call.bizId ?? ''))).toEqual([]);
    expect(drafts.filter((call) => call.bizId === fresh.command.bizId)).toHaveLength(1);
  });
});
