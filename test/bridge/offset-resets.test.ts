/**
 * What an operator may do to the group's offsets and the topics, at the broker (docs/design.md,
 * "Offsets and topics an operator changes"; the runbook in docs/deployment.md). Offsets are reset
 * as `kafka-consumer-groups --reset-offsets --all-topics` does, with the bridge stopped (a group
 * must be empty to be reset): every topic the group has offsets of, the ledger included, to the
 * latest, to a datetime or to the earliest. After each, the commands that ran are sent again
 * (their old commandIds, in new records) and reach the platform no more; a create-contract saga
 * left half-way (its documents refused by a fault, the bridge stopped) completes with one draft:
 * by itself when its record is read again, when sent again when the reset skipped it. A command
 * topic deleted and created again under the same name: its new records, at the old offsets, run.
 */
import type { Admin } from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BridgeObserver, CommandEnding } from '../../src/consumers/index.js';
import type { Command, CommandType } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  type InProcessBridge,
  keyOnPartition,
  murmur2Partition,
  startBridge,
  TEST_PARTITIONS,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { StampedCommands } from '../support/stamped-commands.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const groupId = uniqueId('resets');
const endings: CommandEnding[] = [];
let sim: RunningSimulator;
let sender: CommandSender;
let collector: EventCollector;
let admin: Admin;
let bridge: InProcessBridge | undefined;

const observer: BridgeObserver = { commandFinished: ({ outcome }) => endings.push(outcome) };

// A saga whose documents the platform refuses (503) keeps retrying, the circuit never holding it
// back for long: it stays half-way until the fault is cleared.
const retryForLong = {
  retry: {
    maxAttempts: 100_000,
    maxElapsedMs: 600_000,
    policy: { initialDelayMs: 50, maxDelayMs: 200, multiplier: 2 },
  },
  breaker: {
    failureThreshold: 100_000,
    openDurationMs: 100,
    maxOpenDurationMs: 100,
    halfOpenProbes: 1,
  },
};

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  admin = harnessKafkaClient(brokers).admin();
  await admin.connect();
});

afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
  await sim.admin.setFaults({});
});

afterAll(async () => {
  await admin?.disconnect();
  await collector?.stop();
  await sender?.close();
  await sim?.stop();
});

async function start() {
  bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    observer,
    settings: { groupId, ...retryForLong },
  });
}

async function stop() {
  await bridge?.stop();
  bridge = undefined;
}

type Sent = { type: CommandType; command: Command };

/** Sends the commands and waits for each one's terminal event. */
async function ran(sent: readonly Sent[]) {
  await sender.send(sent);
  await collector.waitForTerminalEvents(sent.map((s) => s.command.commandId));
}

type Shape = { to: 'latest' } | { to: 'earliest' } | { to: 'datetime'; at: number };

/**
 * `kafka-consumer-groups --reset-offsets --all-topics --to-latest | --to-earliest |
 * --to-datetime --execute`: every topic the group holds offsets of (the command topics and the
 * ledger) moved as the shape says, each partition's offset found as the tool finds it and
 * committed with empty metadata, as the tool commits. (kafkajs' admin.setOffsets joins the group
 * once per topic; one member committing them all is quicker and commits the same.)
 */
async function resetAllTopics(shape: Shape) {
  const all = [...Object.values(topics.commands), topics.ledger];
  const offsets = [];
  for (const topic of all) {
    const partitions =
      shape.to === 'datetime'
        ? await admin.fetchTopicOffsetsByTimestamp(topic, shape.at)
        : (await admin.fetchTopicOffsets(topic)).map(({ partition, low, high }) => ({
            partition,
            offset: shape.to === 'earliest' ? low : high,
          }));
    for (const { partition, offset } of partitions) {
      offsets.push({ topic, partition, offset, metadata: '' });
    }
  }
  const member = harnessKafkaClient(brokers).consumer({ groupId });
  const joined = new Promise((resolve) => member.on(member.events.GROUP_JOIN, resolve));
  await member.connect();
  await member.subscribe({ topics: all });
  await member.run({ autoCommit: false, eachBatch: async () => {} });
  member.pause(all.map((topic) => ({ topic })));
  await joined;
  await member.commitOffsets(offsets);
  await member.disconnect();
}

/** Every call the simulator logged for the bizIds (by bizId, or by the contracts it made them). */
async function callsOf(bizIds: readonly string[]) {
  const calls = await sim.admin.calls();
  const contracts = new Set(
    calls.filter((c) => c.bizId !== undefined && bizIds.includes(c.bizId)).map((c) => c.contractId),
  );
  return calls.filter(
    (c) =>
      (c.bizId !== undefined && bizIds.includes(c.bizId)) ||
      (c.contractId !== undefined && contracts.has(c.contractId)),
  );
}

/** From now on: a wait until `count` more commands were skipped as duplicates (no call, no event). */
function duplicatesFromNow() {
  const seen = () => endings.filter((e) => e === 'duplicate').length;
  const before = seen();
  return (count: number, what: string) =>
    waitUntil(() => seen() - before, { what, until: (n) => n >= count, timeoutMs: 60_000 });
}

/** Sends the commands again (new records, the same commandIds): each is a duplicate, no call. */
async function sentAgainAreDuplicates(sent: readonly Sent[]) {
  const bizIds = sent.map((s) => s.command.bizId);
  const before = await callsOf(bizIds);
  const duplicates = duplicatesFromNow();
  await sender.send(sent);
  await duplicates(sent.length, `the ${sent.length} commands sent again taken for duplicates`);
  expect(await callsOf(bizIds)).toEqual(before);
}

/**
 * A create-contract with one document, left half-way: its draft made, its document refused by
 * the platform (503) on every attempt until the bridge stops.
 */
async function halfWaySaga() {
  const saga = await commands.createContract(uniqueId('saga'), { documents: 1 });
  const { bizId } = saga.command;
  await sim.admin.setFaults({
    script: [{ operation: 'addDocumentByFile', kind: 'http503', times: 1_000_000 }],
  });
  const refused = async () => (await sim.admin.calls({ operation: 'addDocumentByFile' })).length;
  const documents = await refused();
  await sender.send([saga]);
  await waitUntil(async () => [(await callsOf([bizId])).length, await refused()], {
    what: 'the saga half-way: its draft made, its document refused',
    until: ([drafts, refusals]) => drafts === 1 && (refusals as number) > documents,
    timeoutMs: 60_000,
  });
  return saga;
}

/** The saga ended with contract.created, one draft and its document added once. */
async function completedOnce(saga: Sent) {
  const ended = await collector.waitForTerminalEvent(saga.command.commandId, 60_000);
  expect(ended.event.type, JSON.stringify(ended.event.data)).toBe('signingbridge.contract.created');
  const calls = await callsOf([saga.command.bizId]);
  expect(calls.filter((c) => c.operation === 'createDraft')).toHaveLength(1);
  expect(calls.filter((c) => c.operation === 'addDocumentByFile' && c.applied)).toHaveLength(1);
}

const created = (n: number) =>
  Promise.all(Array.from({ length: n }, () => commands.createContract(uniqueId('done'))));

describe('the group offsets reset by an operator, all topics (the ledger too)', {
  timeout: 120_000,
}, () => {
  it('when reset to the latest, then the old commands sent again reach the platform no more, and a saga the reset skipped completes with one draft once sent again', async () => {
    await start();
    const old = await created(4);
    await ran(old);
    const saga = await halfWaySaga();
    await stop();

    await resetAllTopics({ to: 'latest' });
    await sim.admin.setFaults({});
    await start();
    await sentAgainAreDuplicates(old);
    // Its record was skipped with the rest: sent again, it resumes after its draft.
    await sender.send([saga]);
    await completedOnce(saga);
  });

  it('when reset to a datetime, then the records since run no second time, a saga among them completes by itself with one draft, and older commands sent again are duplicates', async () => {
    await start();
    const before = await created(2);
    await ran(before);
    const since = Date.now();
    const after = await created(2);
    await ran(after);
    const saga = await halfWaySaga();
    await stop();

    await resetAllTopics({ to: 'datetime', at: since });
    await sim.admin.setFaults({});
    const bizIds = [...before, ...after].map((s) => s.command.bizId);
    const calls = await callsOf(bizIds);
    const duplicates = duplicatesFromNow();
    await start();
    await completedOnce(saga);
    await duplicates(after.length, 'the records since the datetime read again and skipped');
    expect(await callsOf(bizIds)).toEqual(calls);
    await sentAgainAreDuplicates(before);
  });

  it('when reset to the earliest, then every record is read again and none reaches the platform a second time, and a saga half-way completes by itself with one draft', async () => {
    await start();
    const old = await created(2);
    await ran(old);
    const saga = await halfWaySaga();
    await stop();

    await resetAllTopics({ to: 'earliest' });
    await sim.admin.setFaults({});
    const calls = await sim.admin.calls();
    const duplicates = duplicatesFromNow();
    await start();
    await completedOnce(saga);
    // Every command record of this file so far but the saga's: each a duplicate.
    const records = (await admin.fetchTopicOffsets(topics.commands['create-contract'])).reduce(
      (sum, { high }) => sum + Number(high),
      0,
    );
    await duplicates(records - 1, 'every record read again skipped');
    // One call more than before the reset: the saga's document.
    const now = await sim.admin.calls();
    expect(now.slice(calls.length).map((c) => [c.operation, c.contractId])).toEqual([
      ['addDocumentByFile', (await callsOf([saga.command.bizId]))[0]?.contractId],
    ]);
  });
});

describe('a command topic deleted and created again under the same name', {
  timeout: 120_000,
}, () => {
  const topic = topics.commands['add-document'];
  let stamped: StampedCommands;

  beforeAll(async () => {
    stamped = await StampedCommands.connect(brokers, topics);
  });

  afterAll(async () => {
    await stamped?.close();
  });

  /** Add-documents written on partition 0 of the topic, whatever their key's partition. */
  async function onPartition0(sent: readonly Sent[]) {
    await stamped.sendRecords(
      topic,
      sent.map(({ command }) => ({
        key: command.bizId,
        value: JSON.stringify(command),
        partition: 0,
      })),
    );
  }

  /**
   * Deletes the topic and creates it again. A bridge running meanwhile is let see it missing
   * first, as the runbook says: its consumer fails and it gives its partitions up (not ready).
   */
  async function recreate() {
    await admin.deleteTopics({ topics: [topic] });
    await waitUntil(async () => (await admin.listTopics()).includes(topic), {
      what: 'the topic deleted',
      until: (listed) => !listed,
    });
    const running = bridge?.bridge;
    if (running) {
      await waitUntil(() => running.notReadyBecause(), {
        what: 'the bridge not ready: its partitions given up while the topic is missing',
        until: (reasons) => reasons.some((r) => r.startsWith('lease')),
      });
    }
    await createTopics(brokers, topics);
  }

  const documentAdded = async (sent: readonly Sent[]) => {
    await collector.waitForTerminalEvents(sent.map((s) => s.command.commandId));
    for (const { command } of sent) {
      const [ended] = collector.terminalEventsOf(command.commandId);
      expect(ended?.event.type, JSON.stringify(ended?.event.data)).toBe(
        'signingbridge.document.added',
      );
    }
  };

  it('when its new records sit at offsets the old one had (one ended without a final verdict, others forwarded), then they run, with the bridge stopped across it and running through it', async () => {
    // The old topic's partition 0: a document for a contract not made (it ends, not final, at
    // offset 0: its bizId's entry names the record), then four forwarded to their partitions.
    const gone = keyOnPartition('gone', 0, TEST_PARTITIONS);
    const elsewhere = [1, 2].map((p) => keyOnPartition('moved', p, TEST_PARTITIONS));
    const contracts = await Promise.all(elsewhere.map((bizId) => commands.createContract(bizId)));
    await start();
    await ran(contracts);
    const first = await commands.addDocument(gone, 'never');
    await onPartition0([first]);
    const ended = await collector.waitForTerminalEvent(first.command.commandId, 60_000);
    expect(ended.event.type).toBe('signingbridge.command.precondition-timed-out');
    const forwarded = await Promise.all(
      [...elsewhere, ...elsewhere].map((bizId, n) => commands.addDocument(bizId, `old ${n}`)),
    );
    await onPartition0(forwarded);
    await documentAdded(forwarded);
    await stop();

    // Created again while the bridge is stopped; new records wait at offsets 0 to 2.
    await recreate();
    await sender.send([await commands.createContract(gone)]);
    const renewed = [
      await commands.addDocument(gone, 'new'),
      ...(await Promise.all(elsewhere.map((bizId) => commands.addDocument(bizId, 'new')))),
    ];
    await onPartition0(renewed);
    await start();
    await documentAdded(renewed);

    // Created again while the bridge runs: its consumer fails while the topic is missing, and
    // it acquires its partitions afresh once it is back.
    await recreate();
    const again = await Promise.all(elsewhere.map((bizId) => commands.addDocument(bizId, 'again')));
    await onPartition0(again);
    await documentAdded(again);
  });
});

describe('a create-contract whose ledger entry is gone', { timeout: 60_000 }, () => {
  it("when it is sent again, then createDraft answers 1112 and the command fails with the platform's verdict, final, adding nothing to a contract the bridge cannot show is its own", async () => {
    await start();
    const create = await commands.createContract(uniqueId('lost'), { documents: 1 });
    const { bizId, commandId } = create.command;
    await ran([create]);
    await completedOnce(create);
    // The entry deleted, as only a lost ledger would (an open saga's entry never expires); the
    // bridge restarted, so that its restore reads that.
    const stamped = await StampedCommands.connect(brokers, topics);
    const partition = murmur2Partition(bizId, TEST_PARTITIONS);
    await stamped.sendRecords(topics.ledger, [{ key: bizId, value: null, partition }]);
    await stamped.close();
    await stop();
    await start();

    await sender.send([create]);
    await collector.waitUntil(
      () => collector.terminalEventsOf(commandId).length === 2,
      60_000,
      'a second ending',
    );
    const [, again] = collector.terminalEventsOf(commandId);
    expect(again?.event.type).toBe('signingbridge.command.failed');
    expect(again?.data).toMatchObject({ final: true, error: { platformCode: '1112' } });
    const calls = await callsOf([bizId]);
    expect(calls.map((c) => c.operation)).toEqual([
      'createDraft',
      'addDocumentByFile',
      'createDraft',
    ]);
    expect(calls.at(-1)?.code).toBe('1112');
  });
});
