/**
 * A new consumer group (a new KAFKA_GROUP_ID, a deleted group, offsets expired) reads the command
 * topics from the beginning, where records may be older than the ledger remembers. Here, on
 * command topics that keep their producers' record times (CreateTime, as topics made by others
 * may), a first group runs create-contracts written two hours ago; their ledger entries are then
 * deleted as the sweep deletes expired ones (its tombstones); a second group, with a one-hour
 * replay window, reads the same records: none reaches the platform a second time. A fresh record
 * runs.
 *
 * Record times by the broker: on command topics the bridge created (LogAppendTime) a record is
 * as old as its time in the topic, whatever time its producer gave it (a record mirrored or
 * published again keeps an old one): one stamped two hours ago runs, while on a CreateTime topic
 * the same record is refused as expired.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { entryTombstone } from '../../src/ledger/index.js';
import type { TopicNames } from '../../src/schemas/messages/index.js';
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
import { readTopic } from '../support/topic-reader.js';
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
  await createTopics(brokers, topics, TEST_PARTITIONS, { commandTimestamps: 'CreateTime' });
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

describe('record times by the broker', () => {
  /**
   * A bridge on `names` with a one-hour window, in a group of its own, and a create-contract
   * stamped two hours ago written to its topic once it runs: the record's ending.
   */
  async function twoHourOldRecordOn(names: TopicNames) {
    const bridge = await startBridge({
      brokers,
      topics: names,
      simulatorUrl: sim.url,
      settings: { ledgerReplayWindowMs: HOUR },
    });
    const events = await EventCollector.start(brokers, names);
    const producer = await StampedCommands.connect(brokers, names);
    try {
      const { command } = await commands.createContract(uniqueId('mirrored'));
      const writtenFrom = Date.now();
      await producer.send('create-contract', command, writtenFrom - 2 * HOUR);
      const ending = await events.waitForTerminalEvent(command.commandId);
      const drafts = (await sim.admin.calls({ operation: 'createDraft' })).filter(
        (call) => call.bizId === command.bizId,
      );
      const [record] = (await readTopic(brokers, names.commands['create-contract'])).filter(
        (read) => read.key?.toString() === command.bizId,
      );
      return { ending, drafts, recordTime: Number(record?.timestamp), writtenFrom };
    } finally {
      await producer.close();
      await events.stop();
      await bridge.stop();
    }
  }

  it("when a record stamped two hours ago is written to a command topic the bridge created, then a new group with a one-hour window runs it: its time is the broker's append time", async () => {
    // No topic exists: the bridge creates them as the topic table says (LogAppendTime).
    const created = uniqueTopics();
    const { ending, drafts, recordTime, writtenFrom } = await twoHourOldRecordOn(created);
    expect(ending.event.type).toBe('signingbridge.contract.created');
    expect(drafts).toHaveLength(1);
    expect(recordTime).toBeGreaterThanOrEqual(writtenFrom);
  });

  it('when the same record is written to a command topic made with CreateTime, then it is refused as expired without a platform call', async () => {
    const madeByOthers = uniqueTopics();
    await createTopics(brokers, madeByOthers, TEST_PARTITIONS, { commandTimestamps: 'CreateTime' });
    const { ending, drafts, recordTime, writtenFrom } = await twoHourOldRecordOn(madeByOthers);
    expect(ending.event.type).toBe('signingbridge.command.rejected');
    expect(ending.data).toMatchObject({ final: false, error: { code: 'SB_ERR_COMMAND_EXPIRED' } });
    expect(drafts).toHaveLength(0);
    expect(recordTime).toBe(writtenFrom - 2 * HOUR);
  });
});
