/**
 * One bridge in this process against the real broker and the simulator: ordering per bizId,
 * poison records, replays, commands racing their create-contract, business failures.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { Command } from '../../src/schemas/messages/index.js';
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
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
let sim: RunningSimulator;
let sender: CommandSender;
let collector: EventCollector;
let bridge: InProcessBridge;

beforeAll(async () => {
  sim = await startSimulator({ log: false, callLogLimit: 100_000 });
  await createTopics(brokers, topics);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  bridge = await startBridge({ brokers, topics, simulatorUrl: sim.url });
});

afterAll(async () => {
  await bridge?.stop();
  await collector?.stop();
  await sender?.close();
  await sim?.stop();
});

beforeEach(async () => {
  await sim.admin.setFaults({});
});

describe('ordering', () => {
  it('when commands of many bizIds arrive interleaved, then each bizId runs its commands in offset order while bizIds run concurrently', async () => {
    const bizIds = Array.from({ length: 24 }, (_, i) => uniqueId(`order-${i}`));
    const creates = await Promise.all(bizIds.map((bizId) => commands.createContract(bizId)));
    await sender.send(creates);
    await collector.waitForTerminalEvents(creates.map((c) => c.command.commandId));
    // Uneven latency: without per-key ordering, later documents would often overtake.
    await sim.admin.setFaults({ latency: { minMs: 1, maxMs: 40 } });
    const adds = [];
    for (let n = 0; n < 5; n++) {
      for (const bizId of bizIds) adds.push(await commands.addDocument(bizId, `doc-${n}`));
    }
    await sender.send(adds);
    await collector.waitForTerminalEvents(adds.map((a) => a.command.commandId));

    for (const bizId of bizIds) {
      const contract = await sim.admin.contract({ bizId });
      expect(contract.documents.map((d) => d.title)).toEqual([
        'doc-0',
        'doc-1',
        'doc-2',
        'doc-3',
        'doc-4',
      ]);
      const published = collector.events
        .filter((e) => e.key === bizId && e.event.type === 'signingbridge.document.added')
        .sort((a, b) => Number(BigInt(a.offset) - BigInt(b.offset)))
        .map((e) => e.data.title);
      expect(published).toEqual(['doc-0', 'doc-1', 'doc-2', 'doc-3', 'doc-4']);
    }
    // Concurrent across bizIds: the simulator had calls of different bizIds in hand at once.
    const calls = (await sim.admin.calls({ operation: 'addDocumentByFile' })).filter((c) =>
      bizIds.includes(c.bizId ?? ''),
    );
    const overlapping = calls.some((a) =>
      calls.some((b) => a.bizId !== b.bizId && a.received < b.time && b.received < a.time),
    );
    expect(overlapping).toBe(true);
  });
});

describe('poison records', () => {
  it('when a record is not JSON or breaks its schema, then it goes to the dead-letter topic untouched, a rejected event ends it, and its partition carries on', async () => {
    const bizId = uniqueId('poison');
    const topic = topics.commands['create-contract'];
    await sender.sendRaw(topic, bizId, '{not json', { origin: 'test' });
    const invalidId = randomUUID();
    await sender.sendRaw(
      topic,
      bizId,
      JSON.stringify({ commandId: invalidId, bizId, payload: {} }),
    );
    const after = await commands.createContract(bizId);
    await sender.send([after]);

    // The valid command behind the two broken ones on the same partition still runs.
    const ended = await collector.waitForTerminalEvent(after.command.commandId);
    expect(ended.event.type).toBe('signingbridge.contract.created');
    await collector.waitUntil(() => deadLettersOf(bizId).length === 2, 10_000, 'two dead letters');
    const [notJson, invalid] = deadLettersOf(bizId);
    expect(notJson?.value?.toString()).toBe('{not json');
    expect(notJson?.headers).toMatchObject({
      origin: 'test',
      'dlq-error-code': 'SB_ERR_COMMAND_INVALID',
      'dlq-source-topic': topic,
      'dlq-failed-at': expect.any(String),
    });
    expect(invalid?.headers['dlq-error-message']).toContain('payload');
    const rejected = collector.events.filter(
      (e) => e.key === bizId && e.event.type === 'signingbridge.command.rejected',
    );
    expect(rejected).toHaveLength(2);
    expect(rejected[1]?.data).toMatchObject({
      commandId: invalidId,
      error: {
        code: 'SB_ERR_COMMAND_INVALID',
        fields: expect.arrayContaining([expect.objectContaining({ path: 'payload.contract' })]),
      },
      source: { topic },
    });
  });

  function deadLettersOf(bizId: string) {
    return collector.deadLetters.filter((d) => d.key === bizId);
  }
});

describe('replays', () => {
  it('when a command is produced again with the same commandId, then the platform is called once and one terminal event is published', async () => {
    const bizId = uniqueId('replay');
    const create = await commands.createContract(bizId);
    await sender.send([create]);
    await collector.waitForTerminalEvent(create.command.commandId);
    await sender.send([create, create]);
    // A command behind the replays on the same key shows they were passed.
    const later = await commands.addDocument(bizId, 'after-replay');
    await sender.send([later]);
    const laterCreate = await commands.createContract(bizId);
    await sender.send([laterCreate]);
    await collector.waitForTerminalEvent(later.command.commandId);
    await collector.waitForTerminalEvent(laterCreate.command.commandId);

    expect(collector.terminalEventsOf(create.command.commandId)).toHaveLength(1);
    const drafts = await sim.admin.calls({ operation: 'createDraft', bizId });
    // The replays made no call; the second create-contract (a new commandId) was refused 1112.
    expect(drafts.filter((c) => c.ok)).toHaveLength(1);
  });
});

describe('what a commandId names', () => {
  const remind = (bizId: string, commandId: string, payload: Record<string, unknown>) => ({
    type: 'remind' as const,
    command: { commandId, bizId, payload } as Command<'remind'>,
  });

  it('when a commandId is sent again with another payload, then that one is rejected naming the first use, dead-lettered, and makes no call', async () => {
    const bizId = uniqueId('reused');
    const create = await commands.createContract(bizId);
    await sender.send([create]);
    await collector.waitForTerminalEvent(create.command.commandId);
    const commandId = uniqueId('remind');
    await sender.send([remind(bizId, commandId, {})]);
    await collector.waitForTerminalEvent(commandId);
    await sender.send([remind(bizId, commandId, { onlySigning: true })]);
    await waitUntil(() => collector.terminalEventsOf(commandId).length === 2, {
      what: 'the reuse rejected',
    });
    const [, second] = collector.terminalEventsOf(commandId);
    expect(second?.event.type).toBe('signingbridge.command.rejected');
    expect(second?.data).toMatchObject({
      error: { code: 'SB_ERR_COMMAND_ID_REUSED' },
      source: { topic: topics.commands.remind },
    });
    await waitUntil(() => collector.deadLetters.some((d) => d.key === bizId), {
      what: 'its dead-letter copy',
    });
    expect(collector.deadLetters.find((d) => d.key === bizId)?.headers).toMatchObject({
      'dlq-error-code': 'SB_ERR_COMMAND_ID_REUSED',
    });
    expect(await sim.admin.calls({ operation: 'remindSignatories', bizId })).toHaveLength(1);
  });

  it('when two bizIds use one commandId, then each runs and their events have different ce_ids', async () => {
    const bizIds = [uniqueId('daily'), uniqueId('daily')];
    const creates = await Promise.all(bizIds.map((bizId) => commands.createContract(bizId)));
    await sender.send(creates);
    for (const create of creates) await collector.waitForTerminalEvent(create.command.commandId);
    const commandId = uniqueId('daily');
    await sender.send(bizIds.map((bizId) => remind(bizId, commandId, {})));
    await waitUntil(() => collector.terminalEventsOf(commandId).length === 2, {
      what: 'both reminders ended',
    });
    const ended = collector.terminalEventsOf(commandId);
    expect(new Set(ended.map((e) => e.key))).toEqual(new Set(bizIds));
    expect(new Set(ended.map((e) => e.event.id)).size).toBe(2);
  });

  it('when a record key is not UTF-8, then it is rejected as such and its bytes are never read as another bizId', async () => {
    const bizId = uniqueId('latin1');
    const key = Buffer.concat([Buffer.from(bizId), Buffer.from([0xff])]);
    const commandId = uniqueId('not-utf8');
    const value = JSON.stringify({ commandId, bizId: `${bizId}\uFFFD`, payload: {} });
    await sender.sendRaw(topics.commands.remind, key, value);
    const rejected = await collector.waitForTerminalEvent(commandId);
    // Keyed by an excerpt of the key's bytes with their hash, never by the bizId the value claims.
    expect(rejected.key).not.toBe(`${bizId}\uFFFD`);
    expect(rejected.data).toMatchObject({
      error: { code: 'SB_ERR_COMMAND_ENCODING_INVALID' },
    });
  });
});

describe('commands racing their create-contract', () => {
  it('when add-document arrives before its create-contract, then it waits for the contract and both complete', async () => {
    const bizId = uniqueId('race');
    const add = await commands.addDocument(bizId, 'early');
    await sender.send([add]);
    // It found no contract at least once: the platform answered it.
    await waitUntil(
      async () => (await sim.admin.calls({ operation: 'addDocumentByFile', bizId })).length,
      { what: 'the early add-document call answered', timeoutMs: 10_000 },
    );
    const create = await commands.createContract(bizId);
    await sender.send([create]);
    const added = await collector.waitForTerminalEvent(add.command.commandId);
    expect(added.event.type).toBe('signingbridge.document.added');
    const created = await collector.waitForTerminalEvent(create.command.commandId);
    expect(created.event.type).toBe('signingbridge.contract.created');
  });

  it('when the contract never appears, then precondition-timed-out ends the command after the configured wait', async () => {
    const add = await commands.addDocument(uniqueId('never'), 'orphan');
    await sender.send([add]);
    const ended = await collector.waitForTerminalEvent(add.command.commandId);
    expect(ended.event.type).toBe('signingbridge.command.precondition-timed-out');
    expect(ended.data).toMatchObject({
      step: 'add-document',
      error: { platformCode: expect.any(String) },
    });
    // It looked again until the wait configured (3 s in tests) was over.
    expect(ended.data.waitedMs).toBeGreaterThanOrEqual(3_000);
  });
});

describe('failures', () => {
  it('when the platform refuses with a business code, then command.failed carries its code and name at once', async () => {
    const bizId = uniqueId('refused');
    const create = await commands.createContract(bizId);
    (create.command.payload.contract as { signatories: unknown[] }).signatories = [];
    await sender.send([create]);
    const ended = await collector.waitForTerminalEvent(create.command.commandId);
    expect(ended.event.type).toBe('signingbridge.command.failed');
    expect(ended.data).toMatchObject({
      error: { code: 'SB_ERR_PLATFORM_REJECTED', platformCode: '1113', retryable: false },
    });
    expect(await sim.admin.calls({ operation: 'createDraft', bizId })).toHaveLength(1);
  });

  it('when the platform keeps failing transiently, then command.gave-up ends the command after the retry budget', async () => {
    await sim.admin.setFaults({
      operations: { createDraft: { errorRate: 1, error: 'code21990001' } },
    });
    const bizId = uniqueId('down');
    const create = await commands.createContract(bizId);
    await sender.send([create]);
    const ended = await collector.waitForTerminalEvent(create.command.commandId);
    expect(ended.event.type).toBe('signingbridge.command.gave-up');
    expect(ended.data).toMatchObject({ attempts: 4, error: { retryable: true } });
  });
});
