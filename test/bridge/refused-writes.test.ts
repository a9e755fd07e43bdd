/**
 * A record Kafka refuses for good, on the real broker: the events topic's max.message.bytes is
 * lowered while the bridge runs, below the document.added event of one command. Only that command
 * fails (command.failed naming the refused write); the commands whose writes shared a produce
 * request with it complete, and writes go on afterwards: the idempotent producer's state is
 * recovered rather than left to fail every later write with OUT_OF_ORDER_SEQUENCE_NUMBER.
 */
import { ConfigResourceTypes } from 'kafkajs';
import { describe, expect, inject, it } from 'vitest';
import { useEndToEnd } from '../e2e/support/e2e.js';
import { commands } from '../support/bridge-harness.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { uniqueId } from '../support/unique.js';

const brokers = inject('kafkaBrokers').split(',');
const e2e = useEndToEnd();

async function limitEventsTo(bytes: number): Promise<void> {
  const admin = harnessKafkaClient(brokers).admin();
  await admin.connect();
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: ConfigResourceTypes.TOPIC,
        name: e2e.topics.events,
        configEntries: [{ name: 'max.message.bytes', value: String(bytes) }],
      },
    ],
  });
  await admin.disconnect();
}

describe('a write Kafka refuses for good', () => {
  it('when one command’s event is over what the events topic takes, then that command fails, the others sent with it complete, and later writes still go', async () => {
    const bizIds = Array.from({ length: 6 }, (_, i) => uniqueId(`refused-${i}`));
    const creates = await Promise.all(bizIds.map((bizId) => commands.createContract(bizId)));
    for (const { type, command } of creates) await e2e.send(type, command);
    await e2e.collector.waitForTerminalEvents(creates.map((c) => c.command.commandId));

    await limitEventsTo(4_000);
    const [first, ...others] = bizIds as [string, ...string[]];
    const oversized = await commands.addDocument(first, 't'.repeat(6_000));
    const fine = await Promise.all(others.map((bizId) => commands.addDocument(bizId, 'small')));
    await Promise.all([oversized, ...fine].map(({ type, command }) => e2e.send(type, command)));

    const failed = await e2e.ended(oversized.command.commandId);
    expect(failed.event.type).toBe('signingbridge.command.failed');
    expect(failed.data.error).toMatchObject({ code: 'SB_ERR_KAFKA_WRITE_FAILED' });
    for (const { command } of fine) {
      const ended = await e2e.ended(command.commandId);
      expect(ended.event.type).toBe('signingbridge.document.added');
    }

    const later = await Promise.all(others.map((bizId) => commands.addDocument(bizId, 'later')));
    await Promise.all(later.map(({ type, command }) => e2e.send(type, command)));
    for (const { command } of later) {
      const ended = await e2e.ended(command.commandId);
      expect(ended.event.type).toBe('signingbridge.document.added');
    }
  });
});
