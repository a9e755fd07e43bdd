/**
 * Flow control with a bridge in this process: the circuit breaker during an outage, fetching
 * paused when the backlog is full, and a graceful stop that commits what it finished.
 */
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import { Bridge, type BridgeObserver, type CommandEnding } from '../../src/consumers/index.js';
import type { Handlers } from '../../src/handlers/types.js';
import {
  createKafkaConnection,
  type GroupConsumer,
  type KafkaConnection,
} from '../../src/kafka/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  type InProcessBridge,
  startBridge,
  testLogger,
  testSettings,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const log = testLogger('bridge');
let sim: RunningSimulator;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  sim = await startSimulator({ log: false, callLogLimit: 100_000 });
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
  await sim.admin.setFaults({});
});

afterAll(async () => {
  await sim?.stop();
});

/** Fresh topics, a sender and a collector, stopped after the test. */
async function setUp() {
  const topics = uniqueTopics();
  await createTopics(brokers, topics);
  const sender = await CommandSender.connect(brokers, topics);
  const collector = await EventCollector.start(brokers, topics);
  running.push({ stop: () => sender.close() }, collector);
  return { topics, sender, collector };
}

/** Everything the bridge reports, kept for the assertions. */
function recordingObserver() {
  const seen = {
    paused: [] as string[],
    breaker: [] as string[],
    endings: [] as CommandEnding[],
    maxPending: 0,
  };
  const observer: BridgeObserver = {
    consumptionPaused: (paused, reason) => seen.paused.push(`${reason}:${paused}`),
    breakerStateChanged: (state) => seen.breaker.push(state),
    commandFinished: ({ outcome }) => seen.endings.push(outcome),
    load: (_, pending) => {
      seen.maxPending = Math.max(seen.maxPending, pending);
    },
  };
  return { seen, observer };
}

async function bridgeFor(
  topics: ReturnType<typeof uniqueTopics>,
  options: Omit<Parameters<typeof startBridge>[0], 'brokers' | 'topics' | 'simulatorUrl'>,
): Promise<InProcessBridge> {
  const bridge = await startBridge({ brokers, topics, simulatorUrl: sim.url, ...options });
  running.unshift(bridge);
  return bridge;
}

const createContracts = (count: number) =>
  Promise.all(Array.from({ length: count }, () => commands.createContract(uniqueId('fc'))));

it('when the platform is down, then the circuit opens, fetching pauses and few calls are spent; once it is back, every command completes', async () => {
  const { topics, sender, collector } = await setUp();
  const { seen, observer } = recordingObserver();
  await bridgeFor(topics, {
    observer,
    settings: {
      breaker: {
        failureThreshold: 5,
        openDurationMs: 300,
        maxOpenDurationMs: 600,
        halfOpenProbes: 1,
      },
      retry: {
        maxAttempts: 1_000,
        maxElapsedMs: 60_000,
        policy: { initialDelayMs: 10, maxDelayMs: 50, multiplier: 2 },
      },
    },
  });
  await sim.admin.setFaults({ operations: { '*': { errorRate: 1, error: 'http503' } } });
  const load = await createContracts(40);
  await sender.send(load);
  await waitUntil(() => seen.paused, {
    until: (paused) => paused.includes('breaker:true'),
    what: 'consumption paused by the breaker',
    timeoutMs: 10_000,
  });
  // Three open periods in a row, each ended by one failed probe: while open, nothing is called.
  const opened = () => seen.breaker.filter((state) => state === 'open').length;
  await waitUntil(opened, {
    until: (times) => times >= 3,
    what: 'the circuit opened three times',
    timeoutMs: 20_000,
  });
  // Five failures opened it, with at most the 40 commands' calls then in flight, then a probe
  // per open period; without the breaker, 40 commands retrying every ≤50 ms make hundreds.
  const spent = (await sim.admin.calls({ operation: 'createDraft' })).filter((c) => !c.ok).length;
  expect(spent).toBeLessThanOrEqual(5 + 40 + opened());

  await sim.admin.setFaults({});
  await collector.waitForTerminalEvents(load.map((c) => c.command.commandId));
  expect(seen.breaker).toContain('open');
  expect(seen.breaker.at(-1)).toBe('closed');
  expect(seen.paused.at(-1)).toBe('breaker:false');
  const types = load.map((c) => collector.terminalEventsOf(c.command.commandId)[0]?.event.type);
  expect(new Set(types)).toEqual(new Set(['signingbridge.contract.created']));
});

it('when more commands wait than maxPending, then fetching pauses until half are done, and all complete', async () => {
  const { topics, sender, collector } = await setUp();
  const { seen, observer } = recordingObserver();
  await sim.admin.setFaults({ latency: { fixedMs: 20 } });
  await bridgeFor(topics, {
    observer,
    settings: { maxInFlight: 4, maxPending: 16, commitIntervalMs: 20 },
  });
  const load = await createContracts(150);
  await sender.send(load);
  await collector.waitForTerminalEvents(load.map((c) => c.command.commandId));
  expect(seen.paused).toContain('backpressure:true');
  expect(seen.paused.at(-1)).toBe('backpressure:false');
  expect(seen.maxPending).toBeLessThanOrEqual(16);
});

it('when stopped mid-stream, then it finishes what runs, commits it, and the next bridge runs only the rest', async () => {
  const { topics, sender, collector } = await setUp();
  await sim.admin.setFaults({ latency: { fixedMs: 30 } });
  const settings = { maxInFlight: 8, shutdownDeadlineMs: 5_000 };
  const before = recordingObserver();
  const first = await bridgeFor(topics, { observer: before.observer, settings });
  const load = await createContracts(200);
  await sender.send(load);
  await collector.waitUntil(() => collector.terminalCount >= 50, 30_000, '50 commands ended');
  await first.stop();
  // Counted by the bridge, not the collector: the events of the commands that finished during
  // the stop may not have reached the collector yet.
  const endedBefore = before.seen.endings.length;

  const { seen, observer } = recordingObserver();
  const second = await bridgeFor(topics, {
    observer,
    settings: { ...settings, groupId: groupOf(first) },
  });
  await collector.waitForTerminalEvents(load.map((c) => c.command.commandId));
  // The collector may read an event before the bridge has seen its write acknowledged and
  // counted the ending; stopping drains those last acknowledgements.
  await second.stop();
  // Committed at stop: nothing that ended comes back, not even to be skipped as a replay.
  expect(seen.endings.filter((e) => e === 'duplicate')).toEqual([]);
  expect(seen.endings).toHaveLength(200 - endedBefore);
  for (const { command } of load) {
    expect(collector.terminalEventsOf(command.commandId)).toHaveLength(1);
  }
});

/** The steps of start-up, in order, as the bridge reaches them through its Kafka connection. */
const START_STEPS = [
  'checking the topics',
  'connecting the producer',
  'joining the group',
  'restoring the first partitions',
] as const;
type StartStep = (typeof START_STEPS)[number];

/** The connection, calling `reached` as the bridge begins each step of its start-up. */
function steppingConnection(reached: (step: StartStep) => void): KafkaConnection {
  const kafka = createKafkaConnection({ brokers, clientId: 'stop-during-start', log });
  return {
    ...kafka,
    admin: () => {
      reached('checking the topics');
      return kafka.admin();
    },
    producer: (options) => {
      reached('connecting the producer');
      return kafka.producer(options);
    },
    consumer: (options) => {
      const consumer = kafka.consumer(options);
      const run: GroupConsumer['run'] = (topics, handlers) => {
        reached('joining the group');
        return consumer.run(topics, {
          ...handlers,
          onAssignment: (partitions) => {
            reached('restoring the first partitions');
            handlers.onAssignment(partitions);
          },
        });
      };
      return new Proxy(consumer, {
        get: (target, name) => {
          if (name === 'run') return run;
          const value = Reflect.get(target, name, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
}

it('when stopped at any step of start-up, then start resolves as stopped, stop ends, and no member stays in the group', async () => {
  const topics = uniqueTopics();
  await createTopics(brokers, topics);
  const settings = testSettings();
  const admin = harnessKafkaClient(brokers).admin();
  await admin.connect();
  try {
    // Before anything, then as each step begins: the stop is asked for in the very call.
    for (const stopAt of [undefined, ...START_STEPS]) {
      let stopped: Promise<void> | undefined;
      const bridge: Bridge = new Bridge({
        kafka: steppingConnection((step) => {
          if (step === stopAt && stopped === undefined) stopped = bridge.stop();
        }),
        topics,
        // No command is sent, so no handler runs.
        handlers: {} as Handlers,
        settings,
        log,
      });
      if (stopAt === undefined) stopped = bridge.stop();
      await expect(bridge.start()).resolves.toBeUndefined();
      expect(stopped, `stopped at ${stopAt ?? 'before start'}`).toBeDefined();
      await stopped;
      expect(bridge.ready).toBe(false);
      const [group] = (await admin.describeGroups([settings.groupId])).groups;
      expect(group?.members, `stopped at ${stopAt ?? 'before start'}`).toEqual([]);
    }
  } finally {
    await admin.disconnect();
  }
});

function groupOf(bridge: InProcessBridge): string {
  return bridge.settings.groupId;
}
