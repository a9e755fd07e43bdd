/**
 * A new consumer group (a new KAFKA_GROUP_ID, a deleted group, offsets expired) reads the command
 * topics from the beginning, where records may be older than the ledger remembers. Here a first
 * group runs create-contracts written two hours ago; their ledger entries are then deleted as the
 * sweep deletes expired ones (its tombstones); a second group, with a one-hour replay window,
 * reads the same records: none reaches the platform a second time. A fresh record runs.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { entryTombstone } from '../../src/ledger/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  commands,
  createTopics,
  EventCollector,
  startBridge,
  TEST_PARTITIONS,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { murmur2Partition } from '../support/partitions.js';
import { StampedCommands } from '../support/stamped-commands.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const HOUR = 3_600_000;
let sim: RunningSimulator;
let collector: EventCollector;
let stamped: StampedCommands;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  stamped = await StampedCommands.connect(brokers, topics);
});

afterAll(async () => {
  await stamped?.close();
  await collector?.stop();
  await sim?.stop();
});

describe('records older than the ledger vouches for', () => {
  it('when a second group reads create-contracts whose ledger entries expired, then each is rejected as expired with a dead-letter copy and no second platform call; a fresh one runs', async () => {
    const old = await Promise.all([1, 2, 3].map(() => commands.createContract(uniqueId('stale'))));
    const oldIds = old.map((c) => c.command.commandId);
    const twoHoursAgo = Date.now() - 2 * HOUR;
    for (const { command } of old) await stamped.send('create-contract', command, twoHoursAgo);

    // The first group, its window a day: they run once.
    const first = await startBridge({
      brokers,
      topics,
      simulatorUrl: sim.url,
      settings: { ledgerReplayWindowMs: 24 * HOUR },
    });
    await collector.waitForTerminalEvents(oldIds);
    await first.stop();
    const oldBizIds = new Set(old.map((c) => c.command.bizId));
    const oldContractIds = new Set(
      (await sim.admin.calls({ operation: 'createDraft' }))
        .filter((call) => call.bizId !== undefined && oldBizIds.has(call.bizId))
        .map((call) => call.contractId),
    );
    // Calls that name an old contract, by its bizId or by the contractId the platform gave it.
    const callsOfOld = async () =>
      (await sim.admin.calls()).filter(
        (call) =>
          (call.bizId !== undefined && oldBizIds.has(call.bizId)) ||
          (call.contractId !== undefined && oldContractIds.has(call.contractId)),
      );
    const firstGroupCalls = await callsOfOld();
    // Their entries expire, as the sweep deletes them: a tombstone each.
    await stamped.sendRecords(
      topics.ledger,
      old.map(({ command: { bizId } }) => {
        const partition = murmur2Partition(bizId, TEST_PARTITIONS);
        const { key } = entryTombstone(topics.ledger, partition, bizId);
        return { key: String(key), value: null, partition };
      }),
    );
    const fresh = await commands.createContract(uniqueId('fresh'));
    await stamped.send('create-contract', fresh.command);

    // A second group (startBridge gives each its own), its window an hour, reads them all again.
    const second = await startBridge({
      brokers,
      topics,
      simulatorUrl: sim.url,
      settings: { ledgerReplayWindowMs: HOUR },
    });
    try {
      await collector.waitForTerminalEvent(fresh.command.commandId);
      await waitUntil(() => oldIds.map((id) => collector.terminalEventsOf(id).length), {
        what: 'a second ending of each old record',
        until: (counts) => counts.every((count) => count === 2),
      });
    } finally {
      await second.stop();
    }

    for (const commandId of oldIds) {
      const [ran, refused] = collector.terminalEventsOf(commandId);
      expect(ran?.event.type).toBe('signingbridge.contract.created');
      expect(refused?.data).toMatchObject({
        final: false,
        error: { code: 'SB_ERR_COMMAND_EXPIRED', retryable: false },
        source: { topic: topics.commands['create-contract'] },
      });
    }
    const letters = await waitUntil(
      () => collector.deadLetters.filter((d) => d.key !== undefined && oldBizIds.has(d.key)),
      { what: 'three dead-letter copies', until: (found) => found.length === 3 },
    );
    expect(letters.map((d) => d.headers['dlq-error-code'])).toEqual(
      Array(3).fill('SB_ERR_COMMAND_EXPIRED'),
    );
    // One draft each, the first group's, and no call of any operation by the second group.
    const drafts = firstGroupCalls.filter((call) => call.operation === 'createDraft');
    for (const bizId of oldBizIds) {
      expect(drafts.filter((call) => call.bizId === bizId)).toHaveLength(1);
    }
    expect(await callsOfOld()).toEqual(firstGroupCalls);
    const freshDrafts = await sim.admin.calls({ operation: 'createDraft' });
    expect(freshDrafts.filter((call) => call.bizId === fresh.command.bizId)).toHaveLength(1);
  });
});
