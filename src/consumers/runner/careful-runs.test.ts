/**
 * Runs of a partition careful after a crash loop (crash-guard.ts), in the runner and scheduler as
 * the bridge wires them: each waits for the partition's one turn holding no slot, writes its
 * careful-run record and runs alone; once the holder suspected of dying is back in the group, the
 * runs waiting go together.
 */

import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { heldLease } from '../../../test/support/held-lease.js';
import { inboundRecord } from '../../../test/support/inbound-record.js';
import { testPublisher } from '../../../test/support/publisher.js';
import { settle } from '../../handlers/settle.js';
import type { CommandContext, Handlers, Outcome } from '../../handlers/types.js';
import type { OutboundRecord } from '../../kafka/index.js';
import { Ledger, LedgerReader } from '../../ledger/index.js';
import { CrashGuard, SUSPECT_GRACE_MS } from '../../partitions/crash-guard.js';
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
const remindTopic = topics.commands.remind;

/** The careful-run record the holder suspected of dying left: it ran offset 0 alone. */
const SUSPECT = { instance: 'stalled', topic: remindTopic, offset: '0', deaths: 0 };

/**
 * Partition 0 careful over offsets 0..9 of the remind topic, the holder 'stalled' suspected of
 * dying while it ran offset 0 alone (CRASH_LOOP_LIMIT 1). Each reminder's call waits until the
 * test answers it; the group's members are `group.live`, the guard's clock `clock.now`.
 */
function carefulPartition() {
  const written: OutboundRecord[] = [];
  const outbox = new Outbox({
    sink: async (records) => void written.push(...records),
    lingerMs: 0,
    maxRecords: 10,
    maxBatchBytes: 1_000_000,
    retry: { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 },
  });
  const group = { live: new Set(['me']) };
  const clock = { now: 0 };
  const task = new PartitionTask(0, { phase: 'active' }, heldLease);
  const marker = { kind: 'acquired' as const, instance: 'me', nonce: 'n' };
  const guard = new CrashGuard({
    partition: 0,
    ledgerTopic: topics.ledger,
    marker,
    outbox,
    owner: task,
    maxDeaths: 1,
    onRefused: () => {},
    liveInstances: async () => group.live,
    now: () => clock.now,
  });
  task.acquire(guard, new LedgerReader(marker), 0);
  // What each run was told: as usual, alone, or to wait (and for how long).
  const turns = vi.spyOn(task, 'carefulTurn');
  const waitsFor = (offset: string) =>
    turns.mock.calls.flatMap(([record], i) => {
      const turn = turns.mock.results[i]?.value;
      return record.offset === offset && turn?.go === 'wait' ? [turn.retryInMs] : [];
    });
  task.recover(new Map([[remindTopic, 9n]]), ['stalled'], SUSPECT);
  const ledger = new Ledger(topics.ledger, {});
  ledger.adopt(0, new Map(), 'acquisition');

  const running = new Map<string, { careful: string | undefined; answer: () => void }>();
  let most = 0;
  /** The offset the last careful-run record names. */
  const lastCareful = () => {
    const record = written.findLast((r) => r.key === ' careful');
    return record ? JSON.parse(String(record.value)).offset : undefined;
  };
  const remind = (context: CommandContext): Promise<Outcome> =>
    settle('remind', async () => {
      const { commandId, bizId } = context.command;
      await new Promise<void>((answer) => {
        running.set(commandId, { careful: lastCareful(), answer });
        most = Math.max(most, running.size);
      });
      running.delete(commandId);
      return {
        type: 'signingbridge.reminder.sent',
        step: 'remind',
        data: { commandId, bizId, commandType: 'remind', contractId: 'K1', onlySigning: true },
      };
    });
  const settings = { ...defaultBridgeSettings(), crashLoopLimit: 1 };
  const runner = new CommandRunner({
    handlers: { remind } as unknown as Handlers,
    publisher: testPublisher({ ledger, outbox, topics, log }),
    forwarding: new Forwarding({ outbox, ledgerTopic: topics.ledger, observer: {}, log }),
    breaker: new CircuitBreaker(settings.breaker),
    settings,
    observer: {},
    log,
    ledger,
    refusals: new RefusedWrites({
      readiness: new Readiness(),
      log,
      topics,
      probes: settings.retry.policy,
    }),
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
    const command = { commandId: `c-${offset}`, bizId: `biz-${offset}`, payload: {} };
    const record = inboundRecord({
      topic: remindTopic,
      offset,
      key: command.bizId,
      value: JSON.stringify({ ...command, payload: { contractId: 'K1' } }),
      timestamp: Date.now(),
    });
    scheduler.push(command.bizId, newJob(record, task, 'remind', 1_024));
  };
  const endings = () =>
    written
      .filter((r) => r.topic === topics.events)
      .map((r) => (r.headers as Record<string, string>).ce_type);
  const runningNow = () => [...running.keys()].sort();
  return {
    send,
    scheduler,
    task,
    running,
    runningNow,
    waitsFor,
    most: () => most,
    endings,
    group,
    clock,
    written,
  };
}

describe('runs of a partition careful after a crash loop', () => {
  it('when runs of different bizIds are in hand, then one runs at a time, each after its careful-run record names it, the others holding no slot; once the suspected holder is back in the group, the waiting ones run together', async () => {
    const p = carefulPartition();
    for (const offset of [1, 2, 3, 4, 5]) p.send(offset);
    await vi.waitFor(() => expect(p.runningNow()).toEqual(['c-1']));
    for (const offset of ['2', '3', '4', '5']) {
      await vi.waitFor(() => expect(p.waitsFor(offset)).toEqual([Number.POSITIVE_INFINITY]));
    }
    expect(p.running.get('c-1')?.careful).toBe('1');
    // Waiting for the turn takes no slot: only the one running counts.
    expect(p.scheduler.running).toBe(1);
    p.running.get('c-1')?.answer();
    // The turn's end wakes the first waiting only.
    await vi.waitFor(() => expect(p.runningNow()).toEqual(['c-2']));
    expect(p.running.get('c-2')?.careful).toBe('2');

    p.group.live = new Set(['me', 'stalled']);
    expect(p.task.seen(p.group.live)).toEqual(['stalled']);
    await vi.waitFor(() => expect(p.runningNow()).toEqual(['c-2', 'c-3', 'c-4', 'c-5']));
    for (const { answer } of p.running.values()) answer();
    await vi.waitFor(() => expect(p.scheduler.pending).toBe(0));
    expect(p.most()).toBe(4);
    expect(p.endings()).toEqual(Array(5).fill('signingbridge.reminder.sent'));
  });

  it('when the record its holder ran alone would die its last death, then it waits for that holder while the others run alone; back in the group, it runs as no death', async () => {
    const p = carefulPartition();
    for (const offset of [0, 1]) p.send(offset);
    await vi.waitFor(() => expect(p.runningNow()).toEqual(['c-1']));
    await vi.waitFor(() => expect(p.waitsFor('0')).toEqual([SUSPECT_GRACE_MS]));
    p.group.live = new Set(['me', 'stalled']);
    p.task.seen(p.group.live);
    await vi.waitFor(() => expect(p.runningNow()).toEqual(['c-0', 'c-1']));
    for (const { answer } of p.running.values()) answer();
    await vi.waitFor(() => expect(p.scheduler.pending).toBe(0));
    expect(p.endings()).toEqual(Array(2).fill('signingbridge.reminder.sent'));
  });

  it('when the record its holder ran alone would die its last death and the holder is not back SUSPECT_GRACE_MS after the take-over, then it is dead-lettered without a call', async () => {
    const p = carefulPartition();
    p.clock.now = SUSPECT_GRACE_MS;
    p.send(0);
    await vi.waitFor(() => expect(p.scheduler.pending).toBe(0));
    expect(p.most()).toBe(0);
    expect(p.endings()).toEqual(['signingbridge.command.rejected']);
    const event = p.written.find((r) => r.topic === topics.events);
    expect(JSON.parse(String(event?.value)).error.code).toBe('SB_ERR_COMMAND_CRASH_LOOP');
  });
});
