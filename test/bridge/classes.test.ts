/**
 * Priority classes with a bridge in this process and a rate-limited client: a batch of reminders
 * (bulk) fills its share of the backlog, and a create-contract (interactive) sent after it is
 * still fetched and overtakes them, slot and rate token alike.
 */
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import type { BridgeObserver } from '../../src/consumers/index.js';
import type { GroupConsumer, KafkaConnection, TopicPartitions } from '../../src/kafka/index.js';
import type { Command } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { meta, templateDocument } from '../handlers/support/fixtures.js';
import {
  CommandSender,
  createTopics,
  EventCollector,
  PERSON,
  startBridge,
  uniqueTopics,
} from '../support/bridge-harness.js';
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

/** The connection as it is, but every partition the bridge pauses or resumes is noted. */
function watchingPauses(paused: Map<string, Set<number>>) {
  const note = (list: readonly TopicPartitions[], on: boolean) => {
    for (const { topic, partitions } of list) {
      const set = paused.get(topic) ?? new Set<number>();
      for (const p of partitions) on ? set.add(p) : set.delete(p);
      paused.set(topic, set);
    }
  };
  return (kafka: KafkaConnection): KafkaConnection => ({
    ...kafka,
    consumer(options): GroupConsumer {
      const consumer = kafka.consumer(options);
      const watched: Partial<GroupConsumer> = {
        pause(list) {
          note(list, true);
          consumer.pause(list);
        },
        resume(list) {
          note(list, false);
          consumer.resume(list);
        },
      };
      // Everything else is the consumer's own, called on it (it keeps private state).
      return new Proxy(consumer, {
        get: (target, name) => {
          const value = Reflect.get(watched, name) ?? Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  });
}

it('when the bulk class is full, then only its topics pause, and an interactive command sent after the whole batch is fetched and gets the next slots and rate tokens', async () => {
  const topics = uniqueTopics();
  await createTopics(brokers, topics, 2);
  const sender = await CommandSender.connect(brokers, topics);
  const collector = await EventCollector.start(brokers, topics);
  running.push({ stop: () => sender.close() }, collector);
  const bizIds = await signingContracts(sim.url, 40, 'bulk');

  const paused = new Map<string, Set<number>>();
  const holds: Array<{ on: boolean; remind: number; createContract: number }> = [];
  const reminded: string[] = [];
  const observer: BridgeObserver = {
    consumptionPaused: (on, reason) => {
      if (reason !== 'backpressure') return;
      const count = (topic: string) => paused.get(topic)?.size ?? 0;
      const [remind, createContract] = [topics.commands.remind, topics.commands['create-contract']];
      holds.push({ on, remind: count(remind), createContract: count(createContract) });
    },
    commandFinished: ({ type }) => {
      if (type === 'remind') reminded.push(type);
    },
  };
  const bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    observer,
    kafka: watchingPauses(paused),
    // Shares of the backlog by weight 4:1: interactive 128, bulk 32 (it may borrow up to 160).
    // One bizId holds at most 4 reminders (an eighth of bulk's share): the 40 fill the 160.
    settings: { maxInFlight: 48, maxPending: 160 },
    client: { requestsPerSecond: 5 },
  });
  running.unshift(bridge);

  const reminders = Array.from({ length: 400 }, (_, i) => ({
    type: 'remind' as const,
    command: { ...meta(bizIds[i % bizIds.length] as string), payload: {} } as Command<'remind'>,
  }));
  await sender.send(reminders);
  await waitUntil(() => holds[0], { what: 'the first hold of a class' });
  // Both partitions of the reminders' topic are held back, none of create-contract's.
  expect(holds[0]).toEqual({ on: true, remind: 2, createContract: 0 });

  const bizId = uniqueId('interactive');
  const payload = {
    contract: { subject: bizId, signatories: [PERSON] },
    documents: [templateDocument()],
    initiate: {},
  };
  const create = { ...meta(bizId), payload } as Command<'create-contract'>;
  await sender.send([{ type: 'create-contract', command: create }]);
  const ended = await collector.waitForTerminalEvent(create.commandId, 30_000);
  expect(ended.event.type).toBe('signingbridge.contract.created');
  // Fetched and done while the reminders were still held back and most still waited.
  expect(holds).toHaveLength(1);
  expect(reminded.length).toBeLessThan(reminders.length / 2);

  // Its three calls each had one of the next tokens: between its draft and its initiation the
  // platform saw a few reminders, not the dozens that queued for tokens before them.
  const calls = await sim.admin.calls();
  const contract = await sim.admin.contract({ bizId });
  const drafted = calls.findIndex((c) => c.operation === 'createDraft' && c.bizId === bizId);
  const initiated = calls.findIndex(
    (c) => c.operation === 'initiateContract' && c.contractId === contract.id,
  );
  const between = calls
    .slice(drafted, initiated)
    .filter((c) => c.operation === 'remindSignatories');
  expect(drafted).toBeGreaterThanOrEqual(0);
  expect(initiated).toBeGreaterThan(drafted);
  expect(between.length).toBeLessThanOrEqual(6);
}, 120_000);
