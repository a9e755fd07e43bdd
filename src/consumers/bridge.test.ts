import { setTimeout as delay } from 'node:timers/promises';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
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
import { Bridge } from './bridge.js';
import { defaultBridgeSettings } from './settings.js';

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
  const fetchLedger = () =>
    setImmediate(() => {
      if (!handlers || !fetchingLedger || position >= ledger.length) return;
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
    stop: vi.fn(async () => {}),
  };
  let hanging: Array<(error: Error) => void> | undefined;
  let refusal: Error | undefined;
  const write = (records: readonly OutboundRecord[]) => {
    for (const record of records) {
      if (record.topic === topics.ledger) ledger.push(inbound(record, ledger.length));
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
    topicPartitions: 1,
    admin: async () => ({
      ensureTopics: async (specs) => new Map(specs.map((spec) => [spec.topic, 1])),
      disconnect: async () => {},
    }),
    consumer: () => consumer,
    producer: async () => producer,
  };
  return {
    kafka,
    consumer,
    producer,
    /** Sends from now on hang, as kafkajs' do while it retries a broker that is gone. */
    down: () => {
      hanging = [];
    },
    /** Sends from now on fail at once with `error`. */
    refuse: (error: Error) => {
      refusal = error;
    },
    /** Fails the sends that hang. */
    fail: (error: Error) => {
      for (const reject of hanging?.splice(0) ?? []) reject(error);
    },
  };
}

function inbound(record: OutboundRecord, offset: number): InboundRecord {
  const bytes = (value: string | Buffer | null) =>
    value === null ? null : Buffer.isBuffer(value) ? value : Buffer.from(value);
  return {
    topic: record.topic,
    partition: record.partition ?? 0,
    offset: String(offset),
    key: bytes(record.key),
    value: bytes(record.value),
    headers: {},
    timestamp: '0',
  };
}

const SHUTDOWN_DEADLINE_MS = 1_000;

const notAuthorised = new KafkaWriteFailed('writing to Kafka failed: Topic authorization failed', {
  details: { kafkaError: 'KafkaJSProtocolError', permanent: true },
});

function bridgeOn(kafka: KafkaConnection): Bridge {
  return new Bridge({
    kafka,
    topics,
    // No command arrives in these tests, so no handler runs.
    handlers: {} as Handlers,
    settings: defaultBridgeSettings({ shutdownDeadlineMs: SHUTDOWN_DEADLINE_MS }),
    log: pino({ level: 'silent' }),
  });
}

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

describe('Bridge.stop', () => {
  it('when Kafka stops acknowledging during shutdown, then stop ends by its deadline and the outbox sends nothing after it', async () => {
    const { kafka, producer, down, fail } = fakeKafka();
    const bridge = bridgeOn(kafka);
    await bridge.start();
    down();
    const stopping = Date.now();
    await bridge.stop();
    expect(Date.now() - stopping).toBeLessThan(SHUTDOWN_DEADLINE_MS + 500);
    const sends = vi.mocked(producer.send).mock.calls.length;
    // kafkajs gives up on the released marker's send at last; the outbox would send it again
    // within its first retry delay (at most 500 ms).
    fail(
      new KafkaWriteFailed('writing to Kafka failed: Connection timeout', {
        details: { kafkaError: 'KafkaJSNumberOfRetriesExceeded', permanent: false },
      }),
    );
    await delay(700);
    expect(producer.send).toHaveBeenCalledTimes(sends);
  });
});
