import pino, { type Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { asRead } from '../../test/support/inbound-record.js';
import { KafkaWriteFailed, LedgerUnwritable } from '../errors.js';
import type { Handlers } from '../handlers/types.js';
import type {
  GroupConsumer,
  GroupConsumerHandlers,
  InboundRecord,
  KafkaConnection,
  OutboundRecord,
  RecordProducer,
  TopicPartitions,
} from '../kafka/index.js';
import { topicNames } from '../schemas/messages/index.js';
import { DEFAULT_TOPIC_LAYOUT, topicTable } from '../topics/table.js';
import { Bridge } from './bridge.js';
import { type BridgeObserver, defaultBridgeSettings } from './settings.js';

const topics = topicNames('t.');

/**
 * A one-partition Kafka in memory. Its consumer, once run, does what `joining` says (kafkajs'
 * events, in short; by default it is assigned partition 0); what the producer writes to the
 * ledger is fetched back while the ledger partition is resumed. Sends are acknowledged until
 * `down()`; then they hang until `fail()`.
 */
function fakeKafka(
  joining: (handlers: GroupConsumerHandlers) => void = (h) => h.onAssignment([0]),
) {
  let handlers: GroupConsumerHandlers | undefined;
  const ledger: InboundRecord[] = [];
  let position = 0;
  let fetchingLedger = false;
  let ledgerHeld = false;
  const fetchLedger = () =>
    setImmediate(() => {
      if (!handlers || !fetchingLedger || ledgerHeld || position >= ledger.length) return;
      handlers.onBatch({
        topic: topics.ledger,
        partition: 0,
        records: ledger.slice(position),
        resolve: (offset) => {
          position = Number(offset) + 1;
        },
      });
    });
  const touchesLedger = (partitions: readonly TopicPartitions[]) =>
    partitions.some(({ topic }) => topic === topics.ledger);
  const consumer: GroupConsumer = {
    run: vi.fn(async (_topics, given: GroupConsumerHandlers) => {
      handlers = given;
      joining(given);
    }),
    pause: (partitions) => {
      if (touchesLedger(partitions)) fetchingLedger = false;
    },
    resume: (partitions) => {
      if (!touchesLedger(partitions)) return;
      fetchingLedger = true;
      fetchLedger();
    },
    commit: async () => {},
    liveInstances: async () => new Set<string>(),
    committed: async () => new Map(),
    positions: async () => [],
    lastContact: () => performance.now(),
    offsetForTime: async () => '0',
    seek: () => {},
    stop: vi.fn(async () => {}),
  };
  let hanging: Array<(error: Error) => void> | undefined;
  let refusal: Error | undefined;
  const write = (records: readonly OutboundRecord[]) => {
    for (const record of records) {
      if (record.topic === topics.ledger) {
        ledger.push(asRead(record, { offset: ledger.length, timestamp: 0 }));
      }
    }
    fetchLedger();
  };
  const producer: RecordProducer = {
    send: vi.fn(async (records: readonly OutboundRecord[]) => {
      if (refusal) throw refusal;
      if (hanging) await new Promise<void>((_, reject) => hanging?.push(reject));
      write(records);
    }),
    disconnect: vi.fn(async () => {}),
  };
  const kafka: KafkaConnection = {
    topicLayout: { ...DEFAULT_TOPIC_LAYOUT, partitions: 1 },
    admin: async () => ({
      ensureTopics: async (specs) => new Map(specs.map((spec) => [spec.topic, 1])),
      maxMessageBytes: async (topics) => new Map(topics.map((topic) => [topic, 1_048_588])),
      describeTopics: async () => new Map(),
      // One partition each, led and in sync: nothing to say of a stall.
      partitionHealth: async (topics) =>
        new Map(
          topics.map((topic) => [
            topic,
            {
              minInsyncReplicas: 1,
              brokers: [1],
              partitions: [
                { partition: 0, leader: 1, replicas: [1], isr: [1], offlineReplicas: [] },
              ],
            },
          ]),
        ),
      disconnect: async () => {},
    }),
    consumer: () => consumer,
    producer: async () => producer,
    fence: async () => {},
  };
  return {
    kafka,
    consumer,
    producer,
    /** Sends from now on hang, as kafkajs' do while it retries a broker that is gone. */
    down: () => {
      hanging = [];
    },
    /** The ledger is not fetched from now on, as when a restore reads a long partition. */
    holdLedger: () => {
      ledgerHeld = true;
    },
    /** Sends from now on fail at once with `error`; with none, they are acknowledged again. */
    refuse: (error: Error | undefined) => {
      refusal = error;
    },
    /** Fails the sends that hang. */
    fail: (error: Error) => {
      for (const reject of hanging?.splice(0) ?? []) reject(error);
    },
  };
}

const SHUTDOWN_DEADLINE_MS = 1_000;

const notAuthorised = new KafkaWriteFailed('writing to Kafka failed: Topic authorization failed', {
  details: { kafkaError: 'KafkaJSProtocolError', permanent: true },
});

function bridgeOn(
  kafka: KafkaConnection,
  observer?: BridgeObserver,
  log: Logger = pino({ level: 'silent' }),
): Bridge {
  return new Bridge({
    kafka,
    topics,
    // No command arrives in these tests, so no handler runs.
    handlers: {} as Handlers,
    settings: defaultBridgeSettings({
      shutdownDeadlineMs: SHUTDOWN_DEADLINE_MS,
      commitIntervalMs: COMMIT_INTERVAL_MS,
    }),
    log,
    observer,
  });
}

/** A logger whose lines are kept, parsed. */
function keptLog() {
  const lines: Array<Record<string, unknown> & { msg: string }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

const COMMIT_INTERVAL_MS = 20;

describe('Bridge.start', () => {
  it('when the consumer fails for good before its first assignment, then start rejects and leaves', async () => {
    const { kafka, consumer } = fakeKafka((handlers) => {
      handlers.onCrash(new Error('group authorization failed'), false);
    });
    const bridge = bridgeOn(kafka);
    await expect(bridge.start()).rejects.toThrow('group authorization failed');
    expect(bridge.ready).toBe(false);
    expect(consumer.stop).toHaveBeenCalled();
  });

  it('when the ledger topic refuses the acquired marker for good, then start rejects with LedgerUnwritable naming the topic and the cause, and leaves', async () => {
    const { kafka, consumer, refuse } = fakeKafka();
    refuse(notAuthorised);
    const bridge = bridgeOn(kafka);
    const started = bridge.start();
    await expect(started).rejects.toBeInstanceOf(LedgerUnwritable);
    await expect(started).rejects.toMatchObject({
      code: 'SB_ERR_LEDGER_UNWRITABLE',
      message: expect.stringContaining('Topic authorization failed'),
      details: { topic: topics.ledger, partition: 0 },
      cause: notAuthorised,
    });
    expect(bridge.ready).toBe(false);
    expect(consumer.stop).toHaveBeenCalled();
  });

  it('when the ledger topic refuses the acquired marker of a partition taken on later, then the bridge turns not ready', async () => {
    let handlers: GroupConsumerHandlers | undefined;
    const { kafka, refuse } = fakeKafka((given) => {
      handlers = given;
      given.onAssignment([]);
    });
    const bridge = bridgeOn(kafka);
    await bridge.start();
    expect(bridge.ready).toBe(true);
    refuse(notAuthorised);
    handlers?.onAssignment([0]);
    await vi.waitFor(() => expect(bridge.ready).toBe(false));
    await bridge.stop();
  });

  it('when the consumer crashes and restarts on its own, then start waits for the assignment', async () => {
    const { kafka } = fakeKafka((handlers) => {
      handlers.onCrash(new Error('coordinator not available'), true);
      setTimeout(() => handlers.onAssignment([]), 10);
    });
    const bridge = bridgeOn(kafka);
    await bridge.start();
    expect(bridge.ready).toBe(true);
    await bridge.stop();
  });
});

describe('Bridge readiness while Kafka does not take writes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when writes fail for longer than 5 s, then the bridge is not ready, naming kafka-writes and the error, logged once at error; once the write goes through, ready again, logged once at info', async () => {
    let handlers: GroupConsumerHandlers | undefined;
    const { kafka, refuse } = fakeKafka((given) => {
      handlers = given;
      given.onAssignment([]);
    });
    const { log, lines } = keptLog();
    const kafkaWritesFailing = vi.fn();
    const bridge = bridgeOn(kafka, { kafkaWritesFailing }, log);
    await bridge.start();
    // The grace on a virtual clock; the outbox's delays between sends (under a second for its
    // first few) and the lease on the real one.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    refuse(
      new KafkaWriteFailed('writing to Kafka failed: Connection error: connect ECONNREFUSED', {
        details: { kafkaError: 'KafkaJSConnectionError', permanent: false },
      }),
    );
    // Taking a partition on writes its acquired marker.
    handlers?.onAssignment([0]);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(bridge.ready).toBe(true);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(bridge.notReadyBecause()).toEqual([
      'kafka-writes: writing to Kafka failed: Connection error: connect ECONNREFUSED',
    ]);
    refuse(undefined);
    await vi.waitFor(() => expect(bridge.notReadyBecause()).toEqual([]), { timeout: 5_000 });

    const said = lines.filter(({ msg }) => msg.includes('Kafka'));
    expect(said.filter(({ level }) => level === 50).map(({ msg }) => msg)).toEqual([
      'writing to Kafka fails: not ready until a write goes through (the outbox sends it again)',
    ]);
    expect(said.filter(({ level }) => level === 30).map(({ msg }) => msg)).toEqual([
      'writing to Kafka works again',
    ]);
    expect(kafkaWritesFailing.mock.calls).toEqual([[true], [false]]);
    vi.useRealTimers();
    await bridge.stop();
  });
});

describe('Bridge.stop', () => {
  it('when Kafka stops acknowledging during shutdown, then stop still ends (by its deadline), the outbox closed before the producer disconnects', async () => {
    const { kafka, producer, down } = fakeKafka();
    const bridge = bridgeOn(kafka);
    await bridge.start();
    down();
    // Sends hang from now on: without its deadline, stop would never end.
    await bridge.stop();
    expect(producer.disconnect).toHaveBeenCalled();
    // That a closed outbox sends nothing again, whatever the hanging send returns, is the
    // outbox's own test (src/producers/outbox.test.ts, with a virtual clock).
  });
});

/**
 * Stops during start(): start resolves as stopped, never ready, and no timer is left to commit
 * or sweep (those are intervals, faked in these tests, so none can hide).
 */
async function expectStoppedDuringStart(bridge: Bridge, started: Promise<void>, load: () => void) {
  await bridge.stop();
  await started;
  expect(bridge.ready).toBe(false);
  expect(vi.getTimerCount()).toBe(0);
  expect(load).not.toHaveBeenCalled();
}

describe('Bridge.stop during start', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when stop() is called while start waits for its first assignment, then start resolves as stopped and nothing keeps running', async () => {
    const { kafka, consumer, producer } = fakeKafka(() => {});
    const load = vi.fn();
    const bridge = bridgeOn(kafka, { load });
    const started = bridge.start();
    await vi.waitFor(() => expect(consumer.run).toHaveBeenCalled());
    await expectStoppedDuringStart(bridge, started, load);
    expect(consumer.stop).toHaveBeenCalled();
    expect(producer.disconnect).toHaveBeenCalled();
  });

  it('when stop() is called while the first partitions are restored, then start never turns ready nor starts committing', async () => {
    const { kafka, producer, holdLedger } = fakeKafka();
    holdLedger();
    const load = vi.fn();
    const bridge = bridgeOn(kafka, { load });
    const started = bridge.start();
    // The acquired marker is written; the restore that would read it back does not end.
    await vi.waitFor(() => expect(producer.send).toHaveBeenCalled());
    await expectStoppedDuringStart(bridge, started, load);
  });

  it('when start() is called after stop(), then it resolves without connecting', async () => {
    const { kafka, consumer } = fakeKafka();
    const bridge = bridgeOn(kafka);
    await bridge.stop();
    await bridge.start();
    expect(bridge.ready).toBe(false);
    expect(consumer.run).not.toHaveBeenCalled();
  });
});

describe('Bridge readiness when the consumer crashes', () => {
  it('when the consumer crashes and restarts, then /readyz names the crash and the lease, not a silence, until the consumer has joined again', async () => {
    let handlers: GroupConsumerHandlers | undefined;
    const { kafka, consumer } = fakeKafka((given) => {
      handlers = given;
      given.onAssignment([0]);
    });
    // As KafkajsGroupConsumer: a crash forgets the last contact until the next join.
    let contact: number | undefined = performance.now();
    const bridge = bridgeOn({
      ...kafka,
      consumer: () => ({ ...consumer, lastContact: () => contact }),
    });
    await bridge.start();
    expect(bridge.ready).toBe(true);

    contact = undefined;
    handlers?.onCrash(new Error('Connection error: connect ECONNREFUSED 127.0.0.1:40017'), true);
    expect(bridge.notReadyBecause()).toEqual([
      'kafka-consumer: the Kafka consumer crashed and left the group (Connection error: connect ECONNREFUSED 127.0.0.1:40017); joining it again',
      'lease: this instance may no longer act for its partitions',
    ]);

    contact = performance.now();
    handlers?.onAssignment([0]);
    await vi.waitFor(() => expect(bridge.notReadyBecause()).toEqual([]), { timeout: 5_000 });
    await bridge.stop();
  });
});

describe('Bridge readiness and the clocks', () => {
  const HOUR_MS = 3_600_000;
  const { readinessTimeoutMs } = defaultBridgeSettings();
  // Longer than both readinessTimeoutMs and the 10 s of kafkaConnected.
  const silentMs = Math.max(readinessTimeoutMs, 10_000);

  afterEach(() => {
    vi.useRealTimers();
  });

  /** A started bridge whose consumer last heard from its group at `contact()` (monotonic). */
  async function started(contact: () => number) {
    const { kafka, consumer } = fakeKafka();
    const bridge = bridgeOn({ ...kafka, consumer: () => ({ ...consumer, lastContact: contact }) });
    await bridge.start();
    return bridge;
  }

  it('when the wall clock steps back an hour while the group has been silent past readinessTimeoutMs on the monotonic clock, then the bridge is not ready nor connected', async () => {
    let lastWord = performance.now();
    const bridge = await started(() => lastWord);
    expect(bridge.ready).toBe(true);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - HOUR_MS);
    lastWord = performance.now() - silentMs;
    expect(bridge.ready).toBe(false);
    expect(bridge.notReadyBecause()).toEqual([
      `kafka: no word from the consumer group for ${readinessTimeoutMs} ms`,
    ]);
    expect(bridge.kafkaConnected).toBe(false);
    vi.useRealTimers();
    await bridge.stop();
  });

  it('when the wall clock steps forward an hour while the group answers, then the bridge stays ready and connected', async () => {
    const bridge = await started(() => performance.now());
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + HOUR_MS);
    expect(bridge.ready).toBe(true);
    expect(bridge.kafkaConnected).toBe(true);
    vi.useRealTimers();
    await bridge.stop();
  });

  it('when the wall clock steps back an hour during shutdown, then the logged times of the release and the shutdown are not negative', async () => {
    const { kafka, producer } = fakeKafka();
    const { log, lines } = keptLog();
    const bridge = bridgeOn(kafka, undefined, log);
    await bridge.start();
    vi.useFakeTimers({ toFake: ['Date'] });
    // The released marker's write, within both the release and the shutdown.
    const send = vi.mocked(producer.send);
    const write = send.getMockImplementation();
    send.mockImplementation(async (records) => {
      vi.setSystemTime(Date.now() - HOUR_MS);
      return write?.(records);
    });
    await bridge.stop();
    expect(send).toHaveBeenCalled();
    const logged = (msg: string) => lines.filter((line) => line.msg === msg).map((l) => l.ms);
    expect(logged('partition released')).toEqual([expect.any(Number)]);
    expect(logged('bridge stopped')).toEqual([expect.any(Number)]);
    for (const ms of [...logged('partition released'), ...logged('bridge stopped')]) {
      expect(ms).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('Bridge start: the topic settings it relies on', () => {
  /** Kafka whose topics are described as `configs` says, by topic, with `replicationFactor`. */
  function describedAs(configs: Record<string, Record<string, string>>, replicationFactor = 3) {
    const { kafka } = fakeKafka();
    const admin = async () => ({
      ...(await kafka.admin()),
      describeTopics: async (names: readonly string[]) =>
        new Map(
          names.map((topic) => [
            topic,
            { topic, partitions: 1, replicationFactor, configs: configs[topic] ?? {} },
          ]),
        ),
    });
    return { ...kafka, admin };
  }

  /** Each topic's configuration as the topic table creates it for production (3 replicas, 2 in sync). */
  const asCreated = (): Record<string, Record<string, string>> =>
    Object.fromEntries(
      topicTable(topics, { partitions: 1, replicationFactor: 3, minInsyncReplicas: 2 }).map(
        (row) => [row.topic, { ...row.configs }],
      ),
    );

  it("when a command topic keeps its producers' record times (CreateTime), then the bridge starts and warns naming the topic and message.timestamp.type", async () => {
    const remind = topics.commands.remind;
    const configs = asCreated();
    configs[remind] = { ...configs[remind], 'message.timestamp.type': 'CreateTime' };
    const { log, lines } = keptLog();
    const bridge = bridgeOn(describedAs(configs), undefined, log);
    await bridge.start();
    await bridge.stop();
    const warned = lines.filter((line) => line.msg.startsWith('command topics without'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({
      topics: [remind],
      differences: [
        {
          topic: remind,
          setting: 'message.timestamp.type',
          expected: 'LogAppendTime',
          actual: 'CreateTime',
        },
      ],
    });
    expect(lines.some((line) => line.msg.startsWith('the ledger topic lacks'))).toBe(false);
  });

  it("when topics have a stock broker's defaults (replication 1, min.insync.replicas 1), then the bridge starts and warns once per topic, naming the values and the variables", async () => {
    const configs = asCreated();
    for (const topic of Object.keys(configs)) delete configs[topic]?.['min.insync.replicas'];
    const { log, lines } = keptLog();
    const bridge = bridgeOn(describedAs(configs, 1), undefined, log);
    await bridge.start();
    await bridge.stop();
    const warned = lines.filter((line) => line.msg.includes('production wants 3 and 2'));
    const all = topicTable(topics, {}).map((row) => row.topic);
    expect(warned.map((line) => line.topic).sort()).toEqual([...all].sort());
    expect(warned[0]).toMatchObject({ replicationFactor: 1, minInsyncReplicas: 1 });
    expect(warned[0]?.msg).toContain(
      'replication 1 and min.insync.replicas 1: one broker holds all of it',
    );
    expect(warned[0]?.msg).toContain('TOPIC_REPLICATION_FACTOR and TOPIC_MIN_INSYNC_REPLICAS');
  });

  it('when every topic has what the table sets, then nothing is said of their settings', async () => {
    const { log, lines } = keptLog();
    const bridge = bridgeOn(describedAs(asCreated()), undefined, log);
    await bridge.start();
    await bridge.stop();
    expect(lines.filter((line) => line.level === 40)).toEqual([]);
  });
});
