// The SDK against the real broker and a running bridge: where commands go, what is refused
// before sending, events decoded and outcomes waited for, a subscriber group that resumes.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keyPartition } from '../../src/kafka/index.js';
import {
  type BridgeEvent,
  CommandProducer,
  CommandRefused,
  type DeadLetter,
  EventSubscriber,
  type EventUndecodable,
} from '../../src/sdk/index.js';
import { useEndToEnd } from '../e2e/support/e2e.js';
import { CommandSender, PERSON, TEST_PARTITIONS } from '../support/bridge-harness.js';
import { readTopic } from '../support/topic-reader.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const e2e = useEndToEnd();
const draft = (bizId: string) => ({
  bizId,
  payload: { contract: { subject: `Contract ${bizId}`, signatories: [PERSON] } },
});
let topics: typeof e2e.topics;
let producer: CommandProducer;

beforeAll(async () => {
  topics = e2e.topics;
  producer = await CommandProducer.connect({ brokers }, { topics });
});
afterAll(() => producer?.close());

describe('CommandProducer', () => {
  it('when a command is sent, then it lands keyed by bizId in its murmur2 partition, at the offset returned', async () => {
    const bizId = uniqueId('sdk');
    const sent = await producer.send('approve', {
      commandId: `${bizId}-1`,
      bizId,
      payload: { pass: true },
    });
    expect(sent).toMatchObject({
      type: 'approve',
      commandId: `${bizId}-1`,
      topic: topics.commands.approve,
    });
    expect(sent.partition).toBe(keyPartition(Buffer.from(bizId), TEST_PARTITIONS));
    const records = await readTopic(brokers, topics.commands.approve);
    const at = records.find((r) => r.partition === sent.partition && r.offset === sent.offset);
    expect(at?.key?.toString()).toBe(bizId);
    expect(JSON.parse(at?.value?.toString() ?? '')).toMatchObject({ commandId: `${bizId}-1` });
  });

  it('when many are sent at once, then each says where it went, in order: a partition takes them on consecutive offsets', async () => {
    const bizIds = [uniqueId('many'), uniqueId('many')];
    const batch = [0, 1, 2].flatMap((n) =>
      bizIds.map((bizId) => ({
        type: 'remind' as const,
        command: { commandId: `${bizId}-${n}`, bizId, payload: {} },
      })),
    );
    const sent = await producer.sendMany(batch);
    expect(sent.map((s) => s.commandId)).toEqual(batch.map((b) => b.command.commandId));
    for (const s of sent)
      expect(s.partition).toBe(keyPartition(Buffer.from(s.bizId), TEST_PARTITIONS));
    for (const partition of new Set(sent.map((s) => s.partition))) {
      const offsets = sent.filter((s) => s.partition === partition).map((s) => Number(s.offset));
      expect(offsets).toEqual(offsets.map((_, i) => (offsets[0] ?? 0) + i));
    }
    const records = await readTopic(brokers, topics.commands.remind);
    for (const s of sent) {
      const at = records.find((r) => r.partition === s.partition && r.offset === s.offset);
      expect(JSON.parse(at?.value?.toString() ?? '').commandId).toBe(s.commandId);
    }
  });

  it('when one command of a batch breaks its schema, then it is named and nothing is sent', async () => {
    const before = (await readTopic(brokers, topics.commands.approve)).length;
    const bizId = uniqueId('refused');
    const batch = [
      { type: 'approve' as const, command: { bizId, payload: { pass: true } } },
      { type: 'approve' as const, command: { bizId, payload: { pass: 'yes' } } },
    ];
    const refused = await producer.sendMany(batch as never).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CommandRefused);
    expect(refused).toMatchObject({ details: { index: 1, fields: [{ path: 'payload.pass' }] } });
    expect((refused as Error).message).toMatch(
      /^command 1 of 2: approve command not sent: payload\.pass/,
    );
    expect(await readTopic(brokers, topics.commands.approve)).toHaveLength(before);
  });

  it('when given a kafkajs client of the application, then it sends through that client', async () => {
    const kafka = new Kafka({ brokers, clientId: 'an-application', logLevel: logLevel.NOTHING });
    const own = await CommandProducer.connect({ kafka }, { topics });
    const bizId = uniqueId('own-client');
    const sent = await own.send('remind', { bizId, payload: {} });
    await own.close();
    expect(sent.partition).toBe(keyPartition(Buffer.from(bizId), TEST_PARTITIONS));
  });
});

describe('EventSubscriber', () => {
  it('when a command is sent after it started, then its outcome is waited for, with every event handed over first', async () => {
    const seen: BridgeEvent[] = [];
    const subscriber = await EventSubscriber.start(
      { brokers },
      { topics, onEvent: (e) => void seen.push(e) },
    );
    const bizId = uniqueId('outcome');
    const sent = await producer.send('create-contract', draft(bizId));
    const { commandId } = sent;
    const outcome = await subscriber.waitForOutcome(sent, { timeoutMs: 30_000 });
    expect(outcome.type).toBe('signingbridge.contract.created');
    if (outcome.type === 'signingbridge.contract.created')
      expect(outcome.data.initiated).toBe(false);
    expect(seen.filter((e) => e.commandId === commandId).map((e) => [e.type, e.terminal])).toEqual([
      ['signingbridge.draft.created', false],
      ['signingbridge.contract.created', true],
    ]);
    // An outcome that already arrived is still found.
    await expect(subscriber.waitForOutcome(sent, { timeoutMs: 1 })).resolves.toBe(outcome);
    await subscriber.stop();
    await expect(
      subscriber.waitForOutcome({ bizId, commandId: 'another' }, { timeoutMs: 1_000 }),
    ).rejects.toMatchObject({
      code: 'SB_ERR_SDK_SUBSCRIBER_UNAVAILABLE',
    });
  });

  it('when a commandId is sent again, then a send of other content is answered by its own command.rejected and one of the same content by the first send’s result', async () => {
    const subscriber = await EventSubscriber.start({ brokers }, { topics });
    const bizId = uniqueId('reused');
    const commandId = `${bizId}-create`;
    const contract = draft(bizId);
    const first = await producer.send('create-contract', { commandId, ...contract });
    const other = { ...contract.payload.contract, subject: `Another ${bizId}` };
    const reused = await producer.send('create-contract', {
      commandId,
      bizId,
      payload: { contract: other },
    });
    const [created, refused] = await Promise.all(
      [first, reused].map((s) => subscriber.waitForOutcome(s, { timeoutMs: 30_000 })),
    );
    expect([created?.type, refused?.type]).toEqual([
      'signingbridge.contract.created',
      'signingbridge.command.rejected',
    ]);
    expect(refused?.data).toMatchObject({ error: { code: 'SB_ERR_COMMAND_ID_REUSED' } });
    // The same content again is a duplicate: nothing is published for it, the first result answers.
    const again = await producer.send('create-contract', { commandId, ...contract });
    await expect(subscriber.waitForOutcome(again, { timeoutMs: 30_000 })).resolves.toBe(created);
    await subscriber.stop();
  });

  it('when a record on the events topic is not an event, then it is handed to onUndecodable and reading goes on; dead letters come too', async () => {
    const undecodable: EventUndecodable[] = [];
    const letters: DeadLetter[] = [];
    const subscriber = await EventSubscriber.start(
      { brokers },
      {
        topics,
        onUndecodable: (e) => void undecodable.push(e),
        onDeadLetter: (l) => void letters.push(l),
      },
    );
    const sender = await CommandSender.connect(brokers, topics);
    const bizId = uniqueId('noise');
    await sender.sendRaw(topics.events, bizId, '{"not":"an event"}');
    await sender.sendRaw(topics.commands.remind, bizId, '{not json');
    await sender.close();
    const sent = await producer.send('create-contract', draft(bizId));
    await subscriber.waitForOutcome(sent, { timeoutMs: 30_000 });
    // The dead letter is read from its own topic, so it may come after the outcome awaited.
    await waitUntil(() => letters.length, { what: 'the dead letter of the remind' });
    await subscriber.stop();
    expect(undecodable.map((e) => e.details.reason)).toEqual(['not-cloudevent']);
    expect(letters.map((l) => [l.original.key?.toString(), l.errorCode])).toEqual([
      [bizId, 'SB_ERR_COMMAND_INVALID'],
    ]);
  });

  it('when it reads in a group, then after a restart it goes on where it stopped', async () => {
    const groupId = `subscriber-${uniqueId('group')}`;
    const first: BridgeEvent[] = [];
    const before = await EventSubscriber.start(
      { brokers },
      { topics, groupId, onEvent: (e) => void first.push(e) },
    );
    const one = await producer.send('create-contract', draft(uniqueId('group')));
    await before.waitForOutcome(one, { timeoutMs: 30_000 });
    await before.stop();

    const two = await producer.send('create-contract', draft(uniqueId('group')));
    const second: BridgeEvent[] = [];
    const after = await EventSubscriber.start(
      { brokers },
      { topics, groupId, onEvent: (e) => void second.push(e) },
    );
    await after.waitForOutcome(two, { timeoutMs: 30_000 });
    await after.stop();
    // The topics are shared with the other tests here, whose last events may still come: what
    // matters is that the second read neither repeats the first's nor misses what came after.
    expect(first.map((e) => e.commandId)).not.toContain(two.commandId);
    expect(second.map((e) => e.commandId)).not.toContain(one.commandId);
    expect(second.map((e) => e.commandId)).toContain(two.commandId);
  });
});
