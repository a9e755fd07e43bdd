import type { Kafka } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { KafkajsGroupConsumer } from './group-consumer.js';

/** A promise and the function that resolves it. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** kafkajs' consumer, whose connect() and run() (the join) end when the test says so. */
function kafkajsConsumer() {
  const connecting = gate();
  const joining = gate();
  const consumer = {
    events: { GROUP_JOIN: 'group-join', CRASH: 'crash' },
    on: vi.fn(),
    connect: vi.fn(() => connecting.opened),
    subscribe: vi.fn(async () => {}),
    run: vi.fn(() => joining.opened),
    disconnect: vi.fn(async () => {}),
  };
  const kafka = { consumer: () => consumer } as unknown as Kafka;
  return { kafka, consumer, connected: connecting.open, joined: joining.open };
}

const handlers = {
  onBatch: () => {},
  onAssignment: () => {},
  onHeartbeat: () => {},
  onCrash: () => {},
  held: () => [],
};
const options = { groupId: 'g', instanceId: 'i' };

describe('KafkajsGroupConsumer.stop', () => {
  it('when stopped while joining, then it leaves once the join has ended, not in the middle of it', async () => {
    const { kafka, consumer, connected, joined } = kafkajsConsumer();
    const group = new KafkajsGroupConsumer(kafka, options);
    const running = group.run(['t'], handlers);
    connected();
    await vi.waitFor(() => expect(consumer.run).toHaveBeenCalled());
    const stopped = group.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(consumer.disconnect).not.toHaveBeenCalled();
    joined();
    await Promise.all([running, stopped]);
    expect(consumer.disconnect).toHaveBeenCalledOnce();
  });

  it('when stopped while connecting, then it does not join, and disconnects', async () => {
    const { kafka, consumer, connected } = kafkajsConsumer();
    const group = new KafkajsGroupConsumer(kafka, options);
    const running = group.run(['t'], handlers);
    const stopped = group.stop();
    connected();
    await Promise.all([running, stopped]);
    expect(consumer.subscribe).not.toHaveBeenCalled();
    expect(consumer.run).not.toHaveBeenCalled();
    expect(consumer.disconnect).toHaveBeenCalledOnce();
  });
});
