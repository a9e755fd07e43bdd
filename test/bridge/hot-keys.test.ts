/**
 * Hot keys at the real broker (docs/design.md, "Hot keys"), scaled down from issue 19's shapes
 * (the full ones are `npm run bench -- hotkey`): one bizId with more commands than the whole
 * backlog (MAX_PENDING) must not hold the others back, and add-documents sent before their
 * create-contract must not keep it out. Facts, not durations: what had ended of the busy bizId
 * when the others ended.
 */
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import type { BridgeObserver } from '../../src/consumers/index.js';
import type { Command } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { meta } from '../handlers/support/fixtures.js';
import {
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  startBridge,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { pdfBase64 } from '../support/pdf.js';
import { signingContracts } from '../support/signing-contracts.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
let sim: RunningSimulator;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  sim = await startSimulator({ log: false, callLogLimit: 100_000 });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});
afterAll(() => sim?.stop());

/** Topics of the test's own (two partitions), a sender and a collector on them. */
async function freshTopics() {
  const topics = uniqueTopics();
  await createTopics(brokers, topics, 2);
  const sender = await CommandSender.connect(brokers, topics);
  const collector = await EventCollector.start(brokers, topics);
  running.push({ stop: () => sender.close() }, collector);
  return { topics, sender, collector };
}

/**
 * An observer noting, per bizId, the commands ended, the order all ended in, and the keys held
 * back and released.
 */
function watching() {
  const ended = new Map<string, string[]>();
  const order: Array<{ bizId: string; commandId: string }> = [];
  const heldBack: string[] = [];
  const released: string[] = [];
  const observer: BridgeObserver = {
    commandFinished: ({ bizId, commandId, outcome }) => {
      if (bizId === undefined || commandId === undefined) return;
      const list = ended.get(bizId) ?? [];
      list.push(`${commandId} ${outcome}`);
      ended.set(bizId, list);
      order.push({ bizId, commandId });
    },
    keyHeldBack: ({ bizId }) => heldBack.push(bizId),
    keyReleased: ({ bizId }) => released.push(bizId),
  };
  const endedOf = (bizId: string) => ended.get(bizId)?.length ?? 0;
  /** The commands of `bizId` that had ended when the command `commandId` ended. */
  const endedOfWhen = (bizId: string, commandId: string) => {
    const at = order.findIndex((end) => end.commandId === commandId);
    expect(at, `${commandId} ended`).toBeGreaterThanOrEqual(0);
    return order.slice(0, at).filter((end) => end.bizId === bizId).length;
  };
  return { observer, ended, order, endedOf, endedOfWhen, heldBack, released };
}

/** Contracts made through the bridge, for other interactive commands later: their bizIds. */
async function madeContracts(
  sender: CommandSender,
  collector: EventCollector,
  count: number,
): Promise<string[]> {
  const bizIds = Array.from({ length: count }, () => uniqueId('other'));
  const creates = await Promise.all(bizIds.map((bizId) => commands.createContract(bizId)));
  await sender.send(creates);
  await collector.waitForTerminalEvents(
    creates.map((c) => c.command.commandId),
    30_000,
  );
  return bizIds;
}

/**
 * Sends `create` and, to other contracts, create-contracts and add-documents, all interactive;
 * expects each of the others to end (created, added) while the busy `bizId` had fewer than `n`
 * of its commands ended, so still had work queued.
 */
async function othersEndWhileBusy(
  io: { sender: CommandSender; collector: EventCollector; watch: ReturnType<typeof watching> },
  create: Awaited<ReturnType<typeof commands.createContract>>,
  others: { creates: number; contracts: readonly string[] },
  busy: { bizId: string; n: number },
): Promise<void> {
  const { sender, collector, watch } = io;
  const otherCreates = await Promise.all(
    Array.from({ length: others.creates }, () => commands.createContract(uniqueId('other'))),
  );
  const otherDocuments = await Promise.all(
    others.contracts.map((bizId) => commands.addDocument(bizId, `${bizId}/late`)),
  );
  await sender.send([create, ...otherCreates, ...otherDocuments]);
  const created = await collector.waitForTerminalEvent(create.command.commandId, 30_000);
  expect(created.event.type).toBe('signingbridge.contract.created');
  const expected = [
    ...otherCreates.map((c) => [c, 'signingbridge.contract.created'] as const),
    ...otherDocuments.map((d) => [d, 'signingbridge.document.added'] as const),
  ];
  for (const [other, type] of expected) {
    const { commandId } = other.command;
    const end = await collector.waitForTerminalEvent(commandId, 30_000);
    expect(end.event.type).toBe(type);
    await waitUntil(() => watch.order, {
      what: `${commandId} ended in the bridge`,
      until: (order) => order.some((each) => each.commandId === commandId),
    });
    expect(watch.endedOfWhen(busy.bizId, commandId)).toBeLessThan(busy.n);
  }
}

const remind = (bizId: string) => ({
  type: 'remind' as const,
  command: { ...meta(bizId), payload: {} } as Command<'remind'>,
});

// The backlog: 200 commands, bulk's share 40, so one bizId's reminders in hand at most 5
// (class-shares.ts). The busy bizId sends more than the whole backlog.
const MAX_PENDING = 200;
const HOT = 300;
const OTHERS = 10;

it('when one bizId has more reminders than the whole backlog, then the others sent after them end while it still has most queued, and all of its end once, in order', async () => {
  const { topics, sender, collector } = await freshTopics();
  const [hot, ...others] = (await signingContracts(sim.url, 1 + OTHERS, 'hot')) as [
    string,
    ...string[],
  ];
  const watch = watching();
  const bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    observer: watch.observer,
    settings: { maxPending: MAX_PENDING },
    // The platform's rate: the busy bizId's reminders drain at it, one at a time.
    client: { requestsPerSecond: 50 },
  });
  running.unshift(bridge);

  const hotReminders = Array.from({ length: HOT }, () => remind(hot));
  await sender.send(hotReminders);
  await waitUntil(() => watch.heldBack, {
    what: 'the busy bizId held back',
    until: (held) => held.includes(hot),
  });

  // Each other reminder, one after another: how many of the busy bizId's ended meanwhile.
  const overtaken: number[] = [];
  for (const bizId of others) {
    const before = watch.endedOf(hot);
    const reminder = remind(bizId);
    await sender.send([reminder]);
    const end = await collector.waitForTerminalEvent(reminder.command.commandId, 30_000);
    expect(end.event.type).toBe('signingbridge.reminder.sent');
    overtaken.push(watch.endedOf(hot) - before);
  }
  // The busy bizId still had work queued when the last of them ended.
  expect(watch.endedOf(hot)).toBeLessThan(HOT);
  // Without the bound each waited for half the backlog (a class full until below half) to
  // drain, about 100 of the busy bizId's; with it, one or two.
  expect(Math.max(...overtaken)).toBeLessThan(MAX_PENDING / 4);

  const ids = hotReminders.map((r) => r.command.commandId);
  await collector.waitForTerminalEvents(ids, 60_000);
  // Each once, in the order sent: the events of a bizId are on one partition, in order.
  const events = collector.events.filter((e) => e.terminal && e.key === hot);
  expect(events.map((e) => e.data.commandId)).toEqual(ids);
  const calls = await sim.admin.calls();
  const contract = await sim.admin.contract({ bizId: hot });
  const hotCalls = calls.filter(
    (c) => c.operation === 'remindSignatories' && c.contractId === contract.id,
  );
  expect(hotCalls).toHaveLength(HOT);
  await waitUntil(() => watch.released, {
    what: 'the busy bizId released',
    until: (released) => released.includes(hot),
  });
}, 120_000);

it('when add-documents of a contract come before its create-contract, more than the backlog holds, then the create-contract is fetched and runs, they all complete, and create-contracts and add-documents of other contracts end while fewer than 50 of them ended', async () => {
  const { topics, sender, collector } = await freshTopics();
  const watch = watching();
  const bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    observer: watch.observer,
    // The interactive share is 160 of 200, one bizId's add-documents in hand at most 20.
    settings: {
      maxPending: MAX_PENDING,
      precondition: {
        timeoutMs: 60_000,
        policy: { initialDelayMs: 50, maxDelayMs: 300, multiplier: 2 },
      },
    },
  });
  running.unshift(bridge);
  const contracts = await madeContracts(sender, collector, 3);

  const bizId = uniqueId('early-docs');
  const documents = await Promise.all(
    Array.from({ length: 250 }, (_, n) => commands.addDocument(bizId, `${bizId}/${n}`)),
  );
  await sender.send(documents);
  await waitUntil(() => watch.heldBack, {
    what: 'the add-documents held back',
    until: (held) => held.includes(bizId),
  });
  // Without the bound the add-documents filled the class, and the others were fetched only once
  // it was below half its share: after some 120 of them.
  const create = await commands.createContract(bizId);
  await othersEndWhileBusy(
    { sender, collector, watch },
    create,
    { creates: 5, contracts },
    { bizId, n: 50 },
  );

  const ids = documents.map((d) => d.command.commandId);
  await collector.waitForTerminalEvents(ids, 90_000);
  const outcomes = ids.map((id) => collector.terminalEventsOf(id)[0]?.event.type);
  expect(new Set(outcomes)).toEqual(new Set(['signingbridge.document.added']));
  const contract = await sim.admin.contract({ bizId });
  expect(contract.documents).toHaveLength(documents.length);
}, 150_000);

it('when the bridge stops while a bizId is held back and another takes over, then every command of it ends once, in order, with one platform call each', async () => {
  const { topics, sender, collector } = await freshTopics();
  const [hot, other] = (await signingContracts(sim.url, 2, 'handover')) as [string, string];
  const groupId = `hot-handover-${hot}`;
  const start = async (observer: BridgeObserver) => {
    const bridge = await startBridge({
      brokers,
      topics,
      simulatorUrl: sim.url,
      observer,
      settings: { maxPending: MAX_PENDING, groupId },
      client: { requestsPerSecond: 50 },
    });
    running.unshift(bridge);
    return bridge;
  };

  const first = watching();
  const a = await start(first.observer);
  const hotReminders = Array.from({ length: 150 }, () => remind(hot));
  const others = Array.from({ length: 20 }, () => remind(other));
  await sender.send([...hotReminders, ...others]);
  await waitUntil(() => first.endedOf(hot), {
    what: 'the busy bizId held back with some of its reminders ended',
    until: (ended) => first.heldBack.includes(hot) && ended >= 10,
  });
  // Its commit stays below its first reminder left in Kafka: the next owner reads it again.
  await a.stop();
  expect(first.endedOf(hot)).toBeLessThan(hotReminders.length);

  const second = watching();
  await start(second.observer);
  const ids = [...hotReminders, ...others].map((r) => r.command.commandId);
  await collector.waitForTerminalEvents(ids, 60_000);
  const terminals = collector.events.filter((e) => e.terminal);
  const hotEnds = terminals.filter((e) => e.key === hot).map((e) => e.data.commandId);
  expect(hotEnds).toEqual(hotReminders.map((r) => r.command.commandId));
  const calls = await sim.admin.calls();
  const contract = await sim.admin.contract({ bizId: hot });
  const hotCalls = calls.filter(
    (c) => c.operation === 'remindSignatories' && c.contractId === contract.id,
  );
  expect(hotCalls).toHaveLength(hotReminders.length);
}, 120_000);

it('when add-documents with ~500 KB inline files come before their create-contract, more bytes than the backlog holds, then the create-contract runs, they all complete, and create-contracts and add-documents of other contracts end while some of them still wait', async () => {
  const { topics, sender, collector } = await freshTopics();
  const watch = watching();
  const bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    observer: watch.observer,
    // The interactive share is 3.2 MiB of 4 MiB: one bizId holds 0.4 MiB of add-documents, so
    // one of these at a time; the 12 would fill the whole.
    settings: {
      maxPendingBytes: 4 * 1024 * 1024,
      precondition: {
        timeoutMs: 60_000,
        policy: { initialDelayMs: 50, maxDelayMs: 300, multiplier: 2 },
      },
    },
  });
  running.unshift(bridge);
  const contracts = await madeContracts(sender, collector, 3);

  const bizId = uniqueId('large-docs');
  const file = await pdfBase64([''], { attachmentBytes: 500_000 });
  const documents = Array.from({ length: 12 }, (_, n) => ({
    type: 'add-document' as const,
    command: {
      ...meta(bizId),
      payload: {
        source: 'file',
        title: `${bizId}/${n}`,
        fileSuffix: 'pdf',
        file: { base64: file },
      },
    } as Command<'add-document'>,
  }));
  // One a request: a batch of them is over the broker's message size.
  for (const document of documents) await sender.send([document]);
  await waitUntil(() => watch.heldBack, {
    what: 'the large add-documents held back',
    until: (held) => held.includes(bizId),
  });
  // Without the bound they filled the class: the other add-documents ended after all 12. With
  // it, each ends while at least half of the 12 still wait.
  const create = await commands.createContract(bizId);
  await othersEndWhileBusy(
    { sender, collector, watch },
    create,
    { creates: 3, contracts },
    { bizId, n: documents.length / 2 },
  );

  const ids = documents.map((d) => d.command.commandId);
  await collector.waitForTerminalEvents(ids, 60_000);
  const outcomes = ids.map((id) => collector.terminalEventsOf(id)[0]?.event.type);
  expect(new Set(outcomes)).toEqual(new Set(['signingbridge.document.added']));
}, 120_000);
