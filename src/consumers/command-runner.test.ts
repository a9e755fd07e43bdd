import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestNotSent } from '../errors.js';
import { outcomeOf } from '../handlers/outcome.js';
import type { Handlers, Outcome, PendingEvent } from '../handlers/types.js';
import type { InboundRecord } from '../kafka/index.js';
import { Ledger } from '../ledger/index.js';
import { Lease } from '../partitions/index.js';
import { Outbox } from '../producers/index.js';
import { topicNames } from '../schemas/messages/index.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { CommandPublisher } from './command-publisher.js';
import { CommandRunner } from './command-runner.js';
import { type Job, newJob } from './job.js';
import { KeyScheduler } from './key-scheduler.js';
import { defaultBridgeSettings } from './settings.js';

const topics = topicNames('t.');
const log = pino({ level: 'silent' });

function remindRecord(partition: number): InboundRecord {
  const command = { commandId: 'c-1', bizId: 'biz-1', payload: { contractId: 'K1' } };
  return {
    topic: topics.commands.remind,
    partition,
    offset: '0',
    key: Buffer.from('biz-1'),
    value: Buffer.from(JSON.stringify(command)),
    headers: {},
    timestamp: '0',
  };
}

/**
 * A runner on one active lease, whose remind handler ends when the test says so; `sink` stands
 * for Kafka acknowledging the outbox's sends.
 */
function runnerWithPendingHandler(sink: () => Promise<void> = async () => {}) {
  let end: (outcome: Outcome) => void = () => {};
  const handlerStarted = vi.fn();
  const remind = () =>
    new Promise<Outcome>((resolve) => {
      handlerStarted();
      end = resolve;
    });
  const lease = new Lease(0);
  lease.allowStarts();
  const retryScheduled = vi.fn();
  const finish = vi.fn();
  const runner = new CommandRunner({
    handlers: { remind } as unknown as Handlers,
    publisher: new CommandPublisher({
      ledger: new Ledger(topics.ledger),
      outbox: new Outbox({
        sink,
        lingerMs: 0,
        maxRecords: 10,
        maxBatchBytes: 1_000_000,
        retry: { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 },
      }),
      topics,
      source: 'test',
      keep: 10,
      deadLetter: {
        maxRecordBytes: 1_048_588,
        maxKeyBytes: 1_024,
        maxHeaders: 64,
        maxHeaderBytes: 16_384,
      },
      log,
    }),
    leaseOf: () => lease,
    finish,
    breaker: new CircuitBreaker(defaultBridgeSettings().breaker),
    settings: defaultBridgeSettings(),
    observer: { retryScheduled },
    log,
  });
  return { runner, lease, handlerStarted, retryScheduled, finish, end: (o: Outcome) => end(o) };
}

const reminderSent: PendingEvent = {
  type: 'signingbridge.reminder.sent',
  step: 'remind',
  data: {
    commandId: 'c-1',
    bizId: 'biz-1',
    commandType: 'remind',
    contractId: 'K1',
    onlySigning: true,
  },
};

const transient: Outcome = outcomeOf(
  'remind',
  new RequestNotSent('connection refused', {
    details: { operation: 'remind', reason: 'ECONNREFUSED' },
  }),
);

describe('CommandRunner', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when a run asks to retry while its partition is active, then it asks for another run later', async () => {
    const { runner, handlerStarted, end } = runnerWithPendingHandler();
    const verdict = runner.run(newJob(remindRecord(0), 'remind', 1_024), () => {});
    await vi.waitFor(() => expect(handlerStarted).toHaveBeenCalled());
    end(transient);
    await expect(verdict).resolves.toEqual({ retryInMs: expect.any(Number) });
  });

  it('when a command ends, then it yields its slot once its ending is handed to the outbox, and is finished only once Kafka acknowledges it', async () => {
    let acknowledge: () => void = () => {};
    const { runner, handlerStarted, finish, end } = runnerWithPendingHandler(
      () => new Promise<void>((resolve) => (acknowledge = resolve)),
    );
    const yieldSlot = vi.fn();
    const verdict = runner.run(newJob(remindRecord(0), 'remind', 1_024), yieldSlot);
    await vi.waitFor(() => expect(handlerStarted).toHaveBeenCalled());
    end({ kind: 'completed', event: reminderSent });
    await vi.waitFor(() => expect(yieldSlot).toHaveBeenCalledOnce());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(finish).not.toHaveBeenCalled();
    acknowledge();
    await expect(verdict).resolves.toBeUndefined();
    expect(finish).toHaveBeenCalledOnce();
  });

  it('when a run ends asking to retry while its partition is being released, then no retry timer is booked and the command is left to the next owner', async () => {
    vi.useFakeTimers();
    const { runner, lease, handlerStarted, retryScheduled, end } = runnerWithPendingHandler();
    const scheduler = new KeyScheduler<Job>({
      worker: (job, yieldSlot) => runner.run(job, yieldSlot),
      maxInFlight: 1,
      maxPending: 10,
      onError: (error) => {
        throw error;
      },
    });
    scheduler.push('biz-1', newJob(remindRecord(0), 'remind', 1_024));
    await vi.advanceTimersByTimeAsync(0);
    expect(handlerStarted).toHaveBeenCalledOnce();
    lease.stopStarts();
    end(transient);
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(retryScheduled).not.toHaveBeenCalled();
  });
});
