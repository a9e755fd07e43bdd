/**
 * Commands while Kafka refuses the bridge's writes, in the runner and scheduler as the bridge
 * wires them, over an outbox whose Kafka takes each record or refuses it by topic (as a broker
 * answers each partition of a produce request on its own).
 */

import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { heldLease } from '../../../test/support/held-lease.js';
import { inboundRecord } from '../../../test/support/inbound-record.js';
import { testPublisher } from '../../../test/support/publisher.js';
import { KafkaWriteFailed } from '../../errors.js';
import { settle } from '../../handlers/settle.js';
import type { CommandContext, Handlers, Outcome } from '../../handlers/types.js';
import type { OutboundRecord } from '../../kafka/index.js';
import { Ledger, type LedgerEntry } from '../../ledger/index.js';
import { PartitionTask } from '../../partitions/index.js';
import { Outbox } from '../../producers/outbox.js';
import { topicNames } from '../../schemas/messages/index.js';
import { CircuitBreaker } from '../circuit-breaker.js';
import { Forwarding } from '../forwarding.js';
import { type Job, newJob } from '../job.js';
import { KeyScheduler } from '../key-scheduler.js';
import { Readiness } from '../readiness.js';
import { RefusedWrites } from '../refused-writes.js';
import { defaultBridgeSettings } from '../settings.js';
import { CommandRunner } from './command-runner.js';

const topics = topicNames('t.');
const log = pino({ level: 'silent' });
const PROBES = { initialDelayMs: 5, maxDelayMs: 20, multiplier: 2 };

const refusal = (kafkaError: string) =>
  new KafkaWriteFailed(`writing to Kafka failed: ${kafkaError}`, {
    details: { kafkaError, permanent: true },
  });

/**
 * A runner and scheduler on partition 0 whose Kafka refuses the topics in `refusing` (with
 * `error`) until the test empties it. The remind handler records its step `started`, then
 * "calls" (counted per commandId), as platform-step.ts does.
 */
function bridge(refusing: Set<string>, error: KafkaWriteFailed) {
  const task = new PartitionTask(0, { phase: 'active' }, heldLease);
  const finish = vi.spyOn(task, 'finish');
  const written: OutboundRecord[] = [];
  const outbox = new Outbox({
    sink: async (records) => {
      written.push(...records.filter((r) => !refusing.has(r.topic)));
      if (records.some((r) => refusing.has(r.topic))) throw error;
    },
    lingerMs: 0,
    maxRecords: 10,
    maxBatchBytes: 1_000_000,
    retry: { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 },
  });
  const ledger = new Ledger(topics.ledger, {});
  ledger.adopt(0, new Map(), 'acquisition');
  const calls: string[] = [];
  const remind = (context: CommandContext): Promise<Outcome> =>
    settle('remind', async () => {
      await context.record('remind', { state: 'started' });
      const { commandId, bizId } = context.command;
      calls.push(commandId);
      return {
        type: 'signingbridge.reminder.sent',
        step: 'remind',
        data: { commandId, bizId, commandType: 'remind', contractId: 'K1', onlySigning: true },
      };
    });
  const readiness = new Readiness();
  const observer = {};
  const refusals = new RefusedWrites({ readiness, log, topics, probes: PROBES });
  const runner = new CommandRunner({
    handlers: { remind } as unknown as Handlers,
    publisher: testPublisher({ ledger, outbox, topics, log }),
    forwarding: new Forwarding({ outbox, ledgerTopic: topics.ledger, observer, log }),
    breaker: new CircuitBreaker(defaultBridgeSettings().breaker),
    settings: defaultBridgeSettings(),
    observer,
    log,
    ledger,
    refusals,
  });
  const scheduler = new KeyScheduler<Job>({
    worker: (job, yieldSlot) => runner.run(job, yieldSlot),
    maxInFlight: 8,
    maxPending: 100,
    onError: (e) => {
      throw e;
    },
  });
  /** Queues a reminder of its own bizId at `offset`. */
  const send = (offset: number) => {
    const command = {
      commandId: `c-${offset}`,
      bizId: `biz-${offset}`,
      payload: { contractId: 'K1' },
    };
    const record = inboundRecord({
      topic: topics.commands.remind,
      offset,
      key: command.bizId,
      value: JSON.stringify(command),
      timestamp: Date.now(),
    });
    scheduler.push(command.bizId, newJob(record, task, 'remind', 1_024));
  };
  const endings = () =>
    written
      .filter((r) => r.topic === topics.events)
      .map((r) => [(r.headers as Record<string, string>).ce_type, JSON.parse(String(r.value))]);
  /** The last ledger entry Kafka took for the bizId. */
  const lastEntry = (bizId: string) =>
    JSON.parse(
      String(written.findLast((r) => r.topic === topics.ledger && r.key === bizId)?.value),
    ) as LedgerEntry;
  return { send, scheduler, readiness, calls, finish, endings, lastEntry, refusals };
}

describe('commands while Kafka refuses writes until fixed', () => {
  it('when the events topic refuses every ending (Write revoked), then the commands in hand keep theirs and their offsets, no other command calls, not ready; once it takes them again, each command has one ending and one call', async () => {
    const refusing = new Set([topics.events]);
    const b = bridge(refusing, refusal('TOPIC_AUTHORIZATION_FAILED'));
    for (let i = 0; i < 5; i++) b.send(i);
    await vi.waitFor(() => expect(b.refusals.holds).toBe(true));
    await vi.waitFor(() => expect(b.calls).toHaveLength(5));
    for (let i = 5; i < 10; i++) b.send(i);
    // Probes write held endings again (and are refused) meanwhile: let a few go by.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(b.calls).toHaveLength(5);
    expect(b.endings()).toEqual([]);
    expect(b.finish).not.toHaveBeenCalled();
    expect(b.readiness.reasons()).toEqual([
      expect.stringMatching(
        /^kafka-refused: t\.events refused writes with TOPIC_AUTHORIZATION_FAILED/,
      ),
    ]);
    // Whoever reads the ledger now finds each command as it was before its ending: started.
    expect(b.lastEntry('biz-0').open[0]?.steps.remind?.state).toBe('started');

    refusing.clear();
    await vi.waitFor(() => expect(b.scheduler.pending).toBe(0));
    const ids = Array.from({ length: 10 }, (_, i) => `c-${i}`);
    expect([...b.calls].sort()).toEqual([...ids].sort());
    const ended = b.endings();
    expect(ended.map(([type]) => type)).toEqual(Array(10).fill('signingbridge.reminder.sent'));
    expect(ended.map(([, data]) => data.commandId).sort()).toEqual([...ids].sort());
    expect(b.finish).toHaveBeenCalledTimes(10);
    expect(b.readiness.reasons()).toEqual([]);
  });

  it('when the ledger refuses every write (the clock outside the broker’s bounds), then no call is made and nothing ends; once it takes them, each command runs once, its step not in doubt', async () => {
    const refusing = new Set([topics.ledger]);
    const b = bridge(refusing, refusal('INVALID_TIMESTAMP'));
    for (let i = 0; i < 3; i++) b.send(i);
    await vi.waitFor(() => expect(b.refusals.holds).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(b.calls).toEqual([]);
    expect(b.finish).not.toHaveBeenCalled();

    refusing.clear();
    await vi.waitFor(() => expect(b.scheduler.pending).toBe(0));
    expect([...b.calls].sort()).toEqual(['c-0', 'c-1', 'c-2']);
    expect(b.endings().map(([type]) => type)).toEqual(Array(3).fill('signingbridge.reminder.sent'));
    expect(b.readiness.reasons()).toEqual([]);
  });

  it('when the events topic refuses one ending for what it is (too large), then that command ends with command.failed and nothing is held', async () => {
    const refusing = new Set([topics.events]);
    const b = bridge(refusing, refusal('MESSAGE_TOO_LARGE'));
    b.send(0);
    await vi.waitFor(() => expect(b.finish).toHaveBeenCalledOnce());
    expect(b.refusals.holds).toBe(false);
    expect(b.calls).toEqual(['c-0']);
    expect(b.readiness.reasons()).toEqual([]);
  });
});
