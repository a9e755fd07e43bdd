/**
 * Hostile and buggy records against the bridge as it ships (`signing-bridge run` with the image's
 * NODE_OPTIONS heap limit), on the real broker. Each is followed by a valid command on the same
 * partition and one on every other partition: the valid ones complete, the hostile one ends in
 * exactly one command.rejected naming the limit it broke with one dead-letter copy, the process
 * stays alive and ready, and no write of the bridge fails.
 */
import { createServer } from 'node:net';
import fc from 'fast-check';
import type { IHeaders, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IMAGE_NODE_OPTIONS } from '../../bench/support/image-node-options.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  BridgeProcess,
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  keyOnPartition,
  type ReceivedEvent,
  uniquePrefix,
} from '../support/bridge-harness.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';

const PARTITIONS = 3;
// Above the 600 KB records below, and small enough that a record just over it is still one the
// broker takes (its 1 MB default).
const MAX_VALUE_BYTES = 640 * 1024;

const brokers = inject('kafkaBrokers').split(',');
const topics = topicNames(uniquePrefix());
let sim: RunningSimulator;
let sender: CommandSender;
let producer: Producer;
let collector: EventCollector;
let bridge: BridgeProcess;
let healthPort: number;

beforeAll(async () => {
  sim = await startSimulator({ log: false, callLogLimit: 100_000 });
  await createTopics(brokers, topics, PARTITIONS);
  sender = await CommandSender.connect(brokers, topics);
  producer = harnessKafkaClient(brokers).producer({ allowAutoTopicCreation: false });
  await producer.connect();
  collector = await EventCollector.start(brokers, topics);
  healthPort = await freePort();
  bridge = await BridgeProcess.start({
    brokers,
    prefix: topics.events.slice(0, -'events'.length),
    groupId: `poison-${Date.now()}`,
    simulatorUrl: sim.url,
    env: {
      NODE_OPTIONS: IMAGE_NODE_OPTIONS,
      HTTP_PORT: String(healthPort),
      RECORD_MAX_VALUE_BYTES: String(MAX_VALUE_BYTES),
      TOPIC_PARTITIONS: String(PARTITIONS),
    },
  });
});

afterAll(async () => {
  bridge?.kill('SIGTERM');
  await bridge?.exited;
  await collector?.stop();
  await producer?.disconnect();
  await sender?.close();
  await sim?.stop();
});

interface Hostile {
  /** Default: the remind topic. */
  readonly type?: 'remind' | 'create-contract';
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: IHeaders;
}

/**
 * Sends the hostile record to `partition` of the remind topic, then a create-contract on that
 * partition and one on each other; returns the hostile record's one terminal event once the
 * valid commands all completed.
 */
async function survives(hostile: Hostile, partition = 0): Promise<ReceivedEvent> {
  const { type = 'remind', ...record } = hostile;
  const topic = topics.commands[type];
  const [sent] = await producer.send({ topic, messages: [{ ...record, partition }] });
  const offset = sent?.baseOffset ?? '';
  const valid = await Promise.all(
    Array.from({ length: PARTITIONS }, (_, p) =>
      commands.createContract(keyOnPartition(`after-${offset}`, p, PARTITIONS)),
    ),
  );
  await sender.send(valid);
  for (const { command } of valid) {
    const ended = await collector.waitForTerminalEvent(command.commandId);
    expect(ended.event.type).toBe('signingbridge.contract.created');
  }
  const rejections = () =>
    collector.events.filter(
      (e) =>
        e.event.type === 'signingbridge.command.rejected' &&
        e.data.source !== undefined &&
        (e.data.source as { topic: string }).topic === topic &&
        (e.data.source as { offset: string }).offset === offset &&
        (e.data.source as { partition: number }).partition === partition,
    );
  await collector.waitUntil(() => rejections().length > 0, 30_000, `rejection of @${offset}`);
  const letters = () =>
    collector.deadLetters.filter((d) => sourceOf(d.headers) === `${topic}/${partition}@${offset}`);
  await collector.waitUntil(() => letters().length > 0, 30_000, `dead letter of @${offset}`);
  expect(rejections()).toHaveLength(1);
  expect(letters()).toHaveLength(1);
  expect(await readyz()).toBe(200);
  expect(bridge.warnings.filter((w) => w.level === 50 || w.level === 60)).toEqual([]);
  return rejections()[0] as ReceivedEvent;
}

const sourceOf = (headers: Record<string, string>) =>
  `${headers['dlq-source-topic']}/${headers['dlq-source-partition']}@${headers['dlq-source-offset']}`;

function limitOf(event: ReceivedEvent): string | undefined {
  const error = event.data.error as { code: string; message: string };
  return /\(([A-Z_]+)\)/.exec(error.message)?.[1];
}

/** A remind command that breaks its schema (its payload is not an object) unless `extra` mends it. */
const remind = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ commandId: 'c', bizId: 'biz', payload: 'not an object', ...extra });

describe('records of a few hundred kilobytes', () => {
  it('when a commandId is 600 KB long, then the rejection carries a bounded excerpt of it', async () => {
    const event = await survives({ key: 'biz', value: remind({ commandId: 'x'.repeat(600_000) }) });
    expect(event.data.error).toMatchObject({ code: 'SB_ERR_COMMAND_INVALID' });
    expect(String(event.data.commandId).length).toBeLessThanOrEqual(200);
    // ce_id is built of that excerpt, the bizId's and the record's position: bounded too.
    const { topic, partition, offset } = event.data.source as Record<string, unknown>;
    const escaped = String(event.data.commandId).replaceAll('%', '%25').replaceAll('/', '%2F');
    expect(event.event.id).toBe(`biz/${escaped}/rejected@${topic}/${partition}/${offset}`);
  });

  it('when an array has 5,000 entries, then it is rejected naming COMMAND_MAX_ARRAY_ITEMS before validation', async () => {
    const value = remind({ payload: { contract: { signatories: Array(5_000).fill({}) } } });
    const event = await survives({ key: 'biz', value });
    expect(limitOf(event)).toBe('COMMAND_MAX_ARRAY_ITEMS');
  });

  it('when 200,000 empty signatories make 600 KB, then it is rejected and the process does not run out of memory', async () => {
    const value = remind({ payload: { contract: { signatories: Array(200_000).fill({}) } } });
    expect(value.length).toBeGreaterThan(600_000);
    const event = await survives({ key: 'biz', value });
    expect(limitOf(event)).toBe('COMMAND_MAX_ARRAY_ITEMS');
  });

  it('when an array within the limit breaks the schema in each entry, then the rejection names a few fields and counts the rest', async () => {
    const value = JSON.stringify({
      commandId: 'c',
      bizId: 'biz',
      payload: { contract: { subject: 's', signatories: Array(900).fill({}) } },
    });
    const event = await survives({ type: 'create-contract', key: 'biz', value });
    const error = event.data.error as { fields: unknown[]; fieldsOmitted: number };
    expect(error.fields.length).toBeLessThanOrEqual(20);
    expect(error.fieldsOmitted).toBeGreaterThan(0);
  });

  it('when a key is 900 KB long, then it is rejected naming RECORD_MAX_KEY_BYTES and its event is keyed by an excerpt', async () => {
    const event = await survives({ key: Buffer.alloc(921_600, 'k'), value: remind() });
    expect(limitOf(event)).toBe('RECORD_MAX_KEY_BYTES');
    expect(String(event.key).length).toBeLessThanOrEqual(200);
  });

  it('when a value that is not JSON carries a 1 MB header, then it is rejected naming RECORD_MAX_HEADER_BYTES and its dead letter leaves the header out', async () => {
    const event = await survives({
      key: 'biz',
      value: 'not json',
      headers: { huge: Buffer.alloc(1_000_000, 'h') },
    });
    expect(limitOf(event)).toBe('RECORD_MAX_HEADER_BYTES');
    const letter = collector.deadLetters.at(-1);
    expect(letter?.headers.huge).toBeUndefined();
    expect(letter?.headers['dlq-truncated']).toBe('headers');
  });

  it('when a record has 20,000 empty headers, then it is rejected naming RECORD_MAX_HEADERS', async () => {
    const event = await survives({
      key: 'biz',
      value: remind(),
      headers: { '': Array(20_000).fill('') },
    });
    expect(limitOf(event)).toBe('RECORD_MAX_HEADERS');
  });

  it('when a record has 20,000 headers of different names, then it is rejected naming RECORD_MAX_HEADERS', async () => {
    const headers = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`h${i}`, '']));
    const event = await survives({ key: 'biz', value: remind(), headers });
    expect(limitOf(event)).toBe('RECORD_MAX_HEADERS');
    expect((event.data.error as { message: string }).message).toMatch(/: 20000 is over the limit/);
  });

  it('when a value is one byte over RECORD_MAX_VALUE_BYTES, then it is rejected; at the limit it runs', async () => {
    const over = await survives({ key: 'biz', value: remind().padEnd(MAX_VALUE_BYTES + 1, ' ') });
    expect(limitOf(over)).toBe('RECORD_MAX_VALUE_BYTES');
    const { command } = await commands.createContract(keyOnPartition('at-limit', 1, PARTITIONS));
    const value = JSON.stringify(command).padEnd(MAX_VALUE_BYTES, ' ');
    await producer.send({
      topic: topics.commands['create-contract'],
      messages: [{ key: command.bizId, value }],
    });
    const ended = await collector.waitForTerminalEvent(command.commandId);
    expect(ended.event.type).toBe('signingbridge.contract.created');
  });
});

describe('any hostile record of bounded size', () => {
  it('ends in one rejection while the valid commands around it complete and the bridge stays ready', async () => {
    const nested = fc.integer({ min: 30, max: 200 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`);
    const hostile = fc.record({
      key: fc.oneof(
        fc.constant(null),
        fc.string({ maxLength: 20 }),
        fc.integer({ min: 1_025, max: 200_000 }).map((n) => 'k'.repeat(n)),
      ),
      value: fc.oneof(
        nested,
        fc
          .integer({ min: 1_001, max: 50_000 })
          .map((n) => remind({ payload: { list: Array(n).fill(0) } })),
        fc.integer({ min: 201, max: 300_000 }).map((n) => remind({ bizId: 'b'.repeat(n) })),
        fc.string({ maxLength: 2_000 }),
      ),
      headers: fc.oneof(
        fc.constant(undefined),
        fc.integer({ min: 65, max: 5_000 }).map((n) => ({ h: Array(n).fill('v') })),
        fc.integer({ min: 16_385, max: 200_000 }).map((n) => ({ big: 'x'.repeat(n) })),
      ),
    });
    await fc.assert(
      fc.asyncProperty(hostile, fc.nat(PARTITIONS - 1), async (record, partition) => {
        await survives(record as Hostile, partition);
      }),
      { numRuns: 12 },
    );
  });
});

async function readyz(): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
  await response.arrayBuffer();
  return response.status;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
