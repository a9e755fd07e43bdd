import { afterAll, beforeAll, expect, inject, it } from 'vitest';
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

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
let sim: RunningSimulator;
let sender: CommandSender;
let collector: EventCollector;
let bridge: InProcessBridge;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
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

it('when a create-contract command arrives, then one contract.created event ends it', async () => {
  const create = await commands.createContract('smoke-1');
  await sender.send([create]);
  const terminal = await collector.waitForTerminalEvent(create.command.commandId);
  expect(terminal.event.type).toBe('signingbridge.contract.created');
  expect(terminal.key).toBe('smoke-1');
  const contract = await sim.admin.contract({ bizId: 'smoke-1' });
  expect(contract.status).toBe('DRAFT');
});
