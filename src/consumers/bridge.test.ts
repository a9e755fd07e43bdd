import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { Handlers } from '../handlers/types.js';
import type { GroupConsumer, GroupConsumerHandlers, KafkaConnection } from '../kafka/index.js';
import { topicNames } from '../schemas/messages/index.js';
import { Bridge } from './bridge.js';
import { defaultBridgeSettings } from './settings.js';

/** A connection whose consumer, once run, does what `joining` says (kafkajs' events, in short). */
function fakeKafka(joining: (handlers: GroupConsumerHandlers) => void) {
  const consumer: GroupConsumer = {
    run: vi.fn(async (_topics, handlers: GroupConsumerHandlers) => joining(handlers)),
    pause: () => {},
    resume: () => {},
    commit: async () => {},
    liveInstances: async () => new Set<string>(),
    stop: vi.fn(async () => {}),
  };
  const kafka: KafkaConnection = {
    topicPartitions: 1,
    admin: async () => ({
      ensureTopics: async (specs) => new Map(specs.map((spec) => [spec.topic, 1])),
      disconnect: async () => {},
    }),
    consumer: () => consumer,
    producer: async () => ({ send: async () => {}, disconnect: async () => {} }),
  };
  return { kafka, consumer };
}

function bridgeOn(kafka: KafkaConnection): Bridge {
  return new Bridge({
    kafka,
    topics: topicNames('t.'),
    // No command arrives in these tests, so no handler runs.
    handlers: {} as Handlers,
    settings: defaultBridgeSettings({ shutdownDeadlineMs: 1_000 }),
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
