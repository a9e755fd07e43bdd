import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { heldLease } from '../../../test/support/held-lease.js';
import { inboundRecord } from '../../../test/support/inbound-record.js';
import { testPublisher } from '../../../test/support/publisher.js';
import {
  CommandOutcomeUnknown,
  FileFetchFailed,
  KafkaWriteFailed,
  OutcomeUnknown,
  PlatformRejected,
  RequestNotSent,
} from '../../errors.js';
import { outcomeOf } from '../../handlers/outcome.js';
import type { CommandContext, Handlers, Outcome, PendingEvent } from '../../handlers/types.js';
import type { InboundRecord, OutboundRecord } from '../../kafka/index.js';
import { EMPTY_ENTRY, Ledger, withCommandEnded, withStep } from '../../ledger/index.js';
import { PartitionTask } from '../../partitions/index.js';
import { recordingOutbox } from '../../producers/recording-outbox.js';
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
const PROBES = { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 };

function remindRecord(
  partition: number,
  offset = '0',
  contractId = 'K1',
  timestamp = String(Date.now()),
): InboundRecord {
  const command = { commandId: 'c-1', bizId: 'biz-1', payload: { contractId } };
  const value = JSON.stringify(command);
  return inboundRecord({
    topic: topics.commands.remind,
    partition,
    offset,
    key: 'biz-1',
    value,
    timestamp,
  });
}

interface Setup {
  /** The remind handler. */
  readonly remind?: (context: CommandContext) => Promise<Outcome>;
  /** Stands for Kafka acknowledging the outbox's sends. */
  readonly sink?: (records: readonly OutboundRecord[]) => Promise<void>;
  /** The ledger's memory bound per partition. */
  readonly partitionBytes?: number;
}

// The task of the active partition 0 of the latest setup(): job() takes its records under it.
let task = new PartitionTask(0, { phase: 'active' }, heldLease);

/** A runner on the active partition 0, whose ledger holds that partition. */
function setup({
  remind = async () => transient,
  sink = async () => {},
  partitionBytes,
}: Setup = {}) {
  task = new PartitionTask(0, { phase: 'active' }, heldLease);
  const sent: OutboundRecord[] = [];
  const ledger = new Ledger(topics.ledger, { partitionBytes });
  ledger.adopt(0, new Map(), 'acquisition');
  const retryScheduled = vi.fn();
  const commandFinished = vi.fn();
  const recordForwarded = vi.fn();
  const finish = vi.spyOn(task, 'finish');
  const breaker = new CircuitBreaker(defaultBridgeSettings().breaker);
  const outbox = recordingOutbox(sink, sent);
  const observer = { retryScheduled, commandFinished, recordForwarded };
  const runner = new CommandRunner({
    handlers: { remind } as unknown as Handlers,
    publisher: testPublisher({ ledger, outbox, topics, log }),
    forwarding: new Forwarding({ outbox, ledgerTopic: topics.ledger, observer, log }),
    breaker,
    settings: defaultBridgeSettings(),
    observer,
    log,
    ledger,
    refusals: new RefusedWrites({ readiness: new Readiness(), log, topics, probes: PROBES }),
  });
  const events = () => sent.filter((r) => r.topic === topics.events);
  const typeOf = (r: OutboundRecord) => (r.headers as Record<string, string>).ce_type;
  return {
    runner,
    task,
    ledger,
    breaker,
    sent,
    events,
    typeOf,
    retryScheduled,
    commandFinished,
    recordForwarded,
    finish,
  };
}

/** A runner whose remind handler ends when the test says so. */
function runnerWithPendingHandler(sink?: Setup['sink']) {
  let end: (outcome: Outcome) => void = () => {};
  const handlerStarted = vi.fn();
  const remind = () =>
    new Promise<Outcome>((resolve) => {
      handlerStarted();
      end = resolve;
    });
  return { ...setup({ remind, sink }), handlerStarted, end: (o: Outcome) => end(o) };
}

// A record read again is the same record: the same offset and time.
const writtenAt = String(Date.now());
const job = (offset = '0', contractId = 'K1') =>
  newJob(remindRecord(0, offset, contractId, writtenAt), task, 'remind', 1_024);

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

const platformAnswer = (
  platformCode: string,
  family: 'auth' | 'business' | 'transient' | 'not-found',
) =>
  new PlatformRejected(`answered ${platformCode}`, {
    details: {
      operation: 'remindSignatories',
      platformCode,
      rawCode: platformCode,
      platformName: undefined,
      platformMessage: '',
      httpStatus: family === 'auth' ? 443 : 200,
      family,
    },
  });
const authRefused: Outcome = outcomeOf('remind', platformAnswer('443', 'auth'));
const refused = platformAnswer('11011101', 'business');
const internalError = platformAnswer('21990001', 'transient');
/** The contract does not exist (yet): the command waits for it up to PRECONDITION_TIMEOUT_MS. */
const notFound = platformAnswer('11011126', 'not-found');
const unknown = new CommandOutcomeUnknown('remindSignatories: outcome unknown', {
  details: {
    operation: 'remindSignatories',
    step: 'remind',
    sent: 'a reminder to every signatory',
    bizId: 'biz-1',
    reason: 'timeout',
  },
  cause: new OutcomeUnknown('no answer', {
    details: { operation: 'remindSignatories', reason: 'deadline' },
  }),
});

describe('CommandRunner', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when a run asks to retry while its partition is active, then it asks for another run later', async () => {
    const { runner, handlerStarted, end } = runnerWithPendingHandler();
    const verdict = runner.run(job(), () => {});
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
    const verdict = runner.run(job(), yieldSlot);
    await vi.waitFor(() => expect(handlerStarted).toHaveBeenCalled());
    end({ kind: 'completed', event: reminderSent });
    await vi.waitFor(() => expect(yieldSlot).toHaveBeenCalledOnce());
    // Kafka has not acknowledged: nothing can have finished it.
    expect(finish).not.toHaveBeenCalled();
    acknowledge();
    await expect(verdict).resolves.toBeUndefined();
    expect(finish).toHaveBeenCalledOnce();
  });

  it('when a run ends asking to retry while its partition is being released, then no retry timer is booked and the command is left to the next owner', async () => {
    vi.useFakeTimers();
    const { runner, task, handlerStarted, retryScheduled, end } = runnerWithPendingHandler();
    const scheduler = new KeyScheduler<Job>({
      worker: (job, yieldSlot) => runner.run(job, yieldSlot),
      maxInFlight: 1,
      maxPending: 10,
      onError: (error) => {
        throw error;
      },
    });
    scheduler.push('biz-1', job());
    await vi.advanceTimersByTimeAsync(0);
    expect(handlerStarted).toHaveBeenCalledOnce();
    task.step({ type: 'revoked', drainMs: 60_000 }, { handoverTimeoutMs: 1, abortGraceMs: 1 });
    end(transient);
    await vi.advanceTimersByTimeAsync(0);
    expect(scheduler.pending).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(retryScheduled).not.toHaveBeenCalled();
  });

  it('when a handler throws instead of returning an outcome, then the command ends with command.failed naming SB_ERR_HANDLER_THREW', async () => {
    const { runner, events, typeOf, finish, commandFinished } = setup({
      remind: async () => {
        throw new TypeError('a bug');
      },
    });
    await expect(runner.run(job(), () => {})).resolves.toBeUndefined();
    expect(events().map(typeOf)).toEqual(['signingbridge.command.failed']);
    expect(JSON.parse(String(events()[0]?.value)).error.code).toBe('SB_ERR_HANDLER_THREW');
    expect(finish).toHaveBeenCalledOnce();
    expect(commandFinished).toHaveBeenCalledWith(expect.objectContaining({ outcome: 'failed' }));
  });

  it('when the result event breaks its schema, then the command still ends, with command.failed naming SB_ERR_EVENT_INVALID', async () => {
    const broken = { ...reminderSent, data: { commandId: 'c-1' } } as PendingEvent;
    const { runner, events, finish } = setup({
      remind: async () => ({ kind: 'completed', event: broken }),
    });
    await runner.run(job(), () => {});
    expect(JSON.parse(String(events()[0]?.value)).error.code).toBe('SB_ERR_EVENT_INVALID');
    expect(finish).toHaveBeenCalledOnce();
  });

  it('when the circuit is open, then the handler does not run and the command asks to run again after the open period, no attempt counted', async () => {
    const remind = vi.fn(async () => ({ kind: 'completed', event: reminderSent }) as Outcome);
    const { runner, breaker, sent, finish } = setup({ remind });
    for (let i = 0; i < defaultBridgeSettings().breaker.failureThreshold; i++)
      breaker.recordFailure();
    const queued = job();
    const verdict = await runner.run(queued, () => {});
    expect(verdict?.retryInMs).toBeGreaterThan(0);
    expect([remind.mock.calls.length, queued.runs, sent.length]).toEqual([0, 0, 0]);
    expect(finish).not.toHaveBeenCalled();
  });

  it('when transient failures are a file host’s, then the circuit stays closed; the same number of the platform’s opens it', async () => {
    const { failureThreshold } = defaultBridgeSettings().breaker;
    const fileHostDown = outcomeOf(
      'add-document',
      new FileFetchFailed('the file host timed out', {
        details: {
          operation: 'add-document',
          url: 'https://files.example/a.pdf',
          reason: 'timeout',
          transient: true,
        },
      }),
    );
    const byFileHost = setup({ remind: async () => fileHostDown });
    const byPlatform = setup({ remind: async () => transient });
    for (let i = 0; i < failureThreshold; i++) {
      await byFileHost.runner.run(job(), () => {});
      await byPlatform.runner.run(job(), () => {});
    }
    expect(byFileHost.retryScheduled).toHaveBeenCalledTimes(failureThreshold);
    expect([byFileHost.breaker.state, byPlatform.breaker.state]).toEqual(['closed', 'open']);
  });

  it('when the platform refuses the credentials, then the command waits as long as that lasts: no run counts against its retries and the circuit opens', async () => {
    const settings = defaultBridgeSettings();
    const remind = vi.fn(async () => authRefused);
    const { runner, breaker, events, finish, retryScheduled } = setup({ remind });
    const waiting = job();
    const runs = Math.max(settings.retry.maxAttempts, settings.breaker.failureThreshold) + 3;
    for (let run = 0; run < runs; run++) {
      const verdict = await runner.run(waiting, () => {});
      expect(verdict?.retryInMs).toBeGreaterThan(0);
    }
    expect(breaker.state).toBe('open');
    expect(remind).toHaveBeenCalledTimes(settings.breaker.failureThreshold);
    expect(retryScheduled).toHaveBeenCalledWith(expect.objectContaining({ reason: 'outage' }));
    expect([events().length, finish.mock.calls.length, waiting.history.transientFailures]).toEqual([
      0, 0, 0,
    ]);
  });

  it('when a command ends without a final verdict (outcome unknown), then a replay of its record is a duplicate but the same commandId sent again runs again', async () => {
    const remind = vi.fn(async () => outcomeOf('remind', unknown));
    const { runner, events, commandFinished } = setup({ remind });
    await runner.run(job('0'), () => {});
    expect(JSON.parse(String(events()[0]?.value))).toMatchObject({
      final: false,
      error: { code: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN' },
    });
    await runner.run(job('0'), () => {});
    expect(commandFinished).toHaveBeenLastCalledWith(
      expect.objectContaining({ outcome: 'duplicate' }),
    );
    await runner.run(job('1'), () => {});
    expect(remind).toHaveBeenCalledTimes(2);
  });

  it('when the platform refused a command (a final verdict), then the same commandId sent again is a duplicate', async () => {
    const remind = vi.fn(async () => outcomeOf('remind', refused));
    const { runner, events, commandFinished } = setup({ remind });
    await runner.run(job('0'), () => {});
    expect(JSON.parse(String(events()[0]?.value))).toMatchObject({ final: true });
    await runner.run(job('1'), () => {});
    expect(remind).toHaveBeenCalledOnce();
    expect(commandFinished).toHaveBeenLastCalledWith(
      expect.objectContaining({ outcome: 'duplicate' }),
    );
  });

  it('when a commandId that ended is sent again with another payload, then it is rejected naming the first use, copied to the dead-letter topic, and nothing runs', async () => {
    const remind = vi.fn(async () => ({ kind: 'completed', event: reminderSent }) as Outcome);
    const { runner, sent, typeOf, events } = setup({ remind });
    await runner.run(job('0'), () => {});
    await runner.run(job('1', 'K2'), () => {});
    expect(remind).toHaveBeenCalledOnce();
    const rejected = events().find((r) => typeOf(r) === 'signingbridge.command.rejected');
    expect(JSON.parse(String(rejected?.value))).toMatchObject({
      commandId: 'c-1',
      bizId: 'biz-1',
      final: false,
      error: { code: 'SB_ERR_COMMAND_ID_REUSED' },
      source: { topic: topics.commands.remind, partition: 0, offset: '1' },
    });
    expect(String(rejected?.value)).toContain('ended with the platform');
    expect(sent.filter((r) => r.topic === topics.deadLetter)).toHaveLength(1);
    // The same payload again is still a duplicate: the first use keeps the commandId.
    await runner.run(job('2'), () => {});
    expect(remind).toHaveBeenCalledOnce();
    expect(events().filter((r) => typeOf(r) === 'signingbridge.command.rejected')).toHaveLength(1);
  });

  it('when a commandId that ended without a final verdict is sent again with another payload, then it is rejected; with the same payload it runs again', async () => {
    const remind = vi.fn(async () => outcomeOf('remind', unknown));
    const { runner, events, typeOf } = setup({ remind });
    await runner.run(job('0'), () => {});
    await runner.run(job('1', 'K2'), () => {});
    expect(remind).toHaveBeenCalledOnce();
    const [rejected] = events().filter((r) => typeOf(r) === 'signingbridge.command.rejected');
    expect(JSON.parse(String(rejected?.value))).toMatchObject({
      error: { code: 'SB_ERR_COMMAND_ID_REUSED' },
    });
    expect(String(rejected?.value)).toContain('without a final verdict');
    await runner.run(job('2'), () => {});
    expect(remind).toHaveBeenCalledTimes(2);
  });

  it('when a record is older than its ledger vouches for, then it is rejected as expired, dead-lettered, and nothing runs', async () => {
    const remind = vi.fn(async () => ({ kind: 'completed', event: reminderSent }) as Outcome);
    const { runner, sent, events, typeOf } = setup({ remind });
    const { ledgerReplayWindowMs } = defaultBridgeSettings();
    const old = String(Date.now() - ledgerReplayWindowMs - 1);
    await runner.run(newJob(remindRecord(0, '0', 'K1', old), task, 'remind', 1_024), () => {});
    expect(remind).not.toHaveBeenCalled();
    expect(events().map(typeOf)).toEqual(['signingbridge.command.rejected']);
    expect(JSON.parse(String(events()[0]?.value))).toMatchObject({
      commandId: 'c-1',
      final: false,
      error: { code: 'SB_ERR_COMMAND_EXPIRED' },
    });
    expect(sent.filter((r) => r.topic === topics.deadLetter)).toHaveLength(1);
  });

  it('when the memory bound evicted entries, then a record older than the newest evicted write is expired though within LEDGER_REPLAY_WINDOW, and one whose commandId the ledger holds open still runs', async () => {
    const remind = vi.fn(async () => ({ kind: 'completed', event: reminderSent }) as Outcome);
    const { runner, ledger, events, typeOf } = setup({ remind, partitionBytes: 4_000 });
    const hour = 3_600_000;
    const ended = withCommandEnded(EMPTY_ENTRY, 'other', 10);
    for (let i = 0; i < 60; i++) ledger.write(0, `biz-old-${i}`, ended, Date.now() - 2 * hour + i);
    expect(ledger.vouchedSince(0, 0)).toBeGreaterThan(Date.now() - 2 * hour);
    const threeHoursAgo = String(Date.now() - 3 * hour);
    await runner.run(
      newJob(remindRecord(0, '0', 'K1', threeHoursAgo), task, 'remind', 1_024),
      () => {},
    );
    expect(remind).not.toHaveBeenCalled();
    expect(JSON.parse(String(events()[0]?.value))).toMatchObject({
      error: { code: 'SB_ERR_COMMAND_EXPIRED' },
    });
    ledger.write(0, 'biz-1', withStep(EMPTY_ENTRY, 'c-1', 'remind', { state: 'started' }, 10));
    await runner.run(
      newJob(remindRecord(0, '1', 'K1', threeHoursAgo), task, 'remind', 1_024),
      () => {},
    );
    expect(remind).toHaveBeenCalledOnce();
    expect(events().map(typeOf)).toHaveLength(2);
  });

  it('when a record within the window is checked once, then its retries run even if it ages past it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const remind = vi.fn(async () => transient);
    const { runner } = setup({ remind });
    const held = job();
    await runner.run(held, () => {});
    vi.setSystemTime(Date.now() + defaultBridgeSettings().ledgerReplayWindowMs);
    await runner.run(held, () => {});
    expect(remind).toHaveBeenCalledTimes(2);
  });

  it('when the wall clock jumps past the retry budget between two runs, then the command is not given up: its deadlines are monotonic', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { maxElapsedMs } = defaultBridgeSettings().retry;
    const { runner, events } = setup({ remind: async () => outcomeOf('remind', internalError) });
    const retried = job();
    await expect(runner.run(retried, () => {})).resolves.toEqual({
      retryInMs: expect.any(Number),
    });
    vi.setSystemTime(Date.now() + maxElapsedMs + 86_400_000);
    await expect(runner.run(retried, () => {})).resolves.toEqual({
      retryInMs: expect.any(Number),
    });
    expect(events()).toHaveLength(0);
  });

  it('when the wall clock jumps past the precondition timeout while a command waits for its contract, then it keeps waiting; only monotonic time ends it as precondition-timed-out', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const { timeoutMs } = defaultBridgeSettings().precondition;
    const { runner, events, typeOf } = setup({ remind: async () => outcomeOf('remind', notFound) });
    const waiting = job();
    await expect(runner.run(waiting, () => {})).resolves.toEqual({
      retryInMs: expect.any(Number),
    });
    vi.setSystemTime(Date.now() + timeoutMs + 86_400_000);
    await expect(runner.run(waiting, () => {})).resolves.toEqual({
      retryInMs: expect.any(Number),
    });
    expect(events()).toHaveLength(0);
    vi.advanceTimersByTime(timeoutMs);
    await runner.run(waiting, () => {});
    expect(events().map(typeOf)).toEqual(['signingbridge.command.precondition-timed-out']);
  });

  it('when the command already ended (a replay), then nothing runs and nothing is written, and it finishes as a duplicate', async () => {
    const remind = vi.fn(async () => ({ kind: 'completed', event: reminderSent }) as Outcome);
    const { runner, sent, commandFinished } = setup({ remind });
    await runner.run(job(), () => {});
    const written = sent.length;
    await runner.run(job(), () => {});
    expect(remind).toHaveBeenCalledOnce();
    expect(sent).toHaveLength(written);
    expect(commandFinished).toHaveBeenLastCalledWith(
      expect.objectContaining({ outcome: 'duplicate' }),
    );
  });

  it('when a record belongs to another partition, then it is forwarded there with the forwarded mark and finished here; forwarded already, it only finishes', async () => {
    const remind = vi.fn(async () => transient);
    const { runner, task, sent, finish, recordForwarded } = setup({ remind });
    const misplaced = job();
    misplaced.forwardTo = 3;
    await runner.run(misplaced, () => {});
    expect(sent.map((r) => [r.topic, r.partition])).toEqual([
      [topics.commands.remind, 3],
      [topics.ledger, 0],
    ]);
    expect(sent[0]?.headers?.['sb-forwarded-from']).toBe(`${topics.commands.remind}/0/0`);
    expect(task.forwardedUpTo(topics.commands.remind)).toBe(0n);
    const again = job();
    again.forwardTo = 3;
    await runner.run(again, () => {});
    expect(sent).toHaveLength(2);
    expect([
      finish.mock.calls.length,
      recordForwarded.mock.calls.length,
      remind.mock.calls.length,
    ]).toEqual([2, 1, 0]);
  });

  it('when Kafka refuses the forwarded copy for good, then the record runs here, the mark stays, and a retry runs it here again instead of taking it for forwarded', async () => {
    const remind = vi.fn(async () => transient);
    const refuseCopies = async (records: readonly OutboundRecord[]) => {
      if (records.some((r) => r.topic === topics.commands.remind)) {
        throw new KafkaWriteFailed('record too large', {
          details: { kafkaError: 'KafkaJSProtocolError', permanent: true },
        });
      }
    };
    const { runner, task, finish, recordForwarded } = setup({ remind, sink: refuseCopies });
    const misplaced = job();
    misplaced.forwardTo = 3;
    const first = await runner.run(misplaced, () => {});
    const retried = await runner.run(misplaced, () => {});
    expect(task.forwarded.has(topics.commands.remind)).toBe(false);
    expect([first?.retryInMs, retried?.retryInMs]).toEqual([
      expect.any(Number),
      expect.any(Number),
    ]);
    expect([remind.mock.calls.length, finish.mock.calls.length]).toEqual([2, 0]);
    expect(recordForwarded).not.toHaveBeenCalled();
  });
});

describe('CommandRunner, commands held by the circuit breaker', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // A remind command of its own bizId (its key) per index, at that offset.
  const heldJob = (index: number) => {
    const command = {
      commandId: `c-${index}`,
      bizId: `biz-${index}`,
      payload: { contractId: 'K1' },
    };
    const record = {
      ...remindRecord(0, String(index)),
      key: Buffer.from(command.bizId),
      value: Buffer.from(JSON.stringify(command)),
    };
    return newJob(record, task, 'remind', 1_024);
  };

  /**
   * An outage of `failedProbes` failed probes, then a probe that takes `slowProbeMs`, then the
   * platform answers: what the held commands cost meanwhile.
   */
  async function outage(commands: number, failedProbes: number, slowProbeMs: number) {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    });
    let probesLeftToFail = failedProbes;
    const remind = vi.fn(async (context: CommandContext): Promise<Outcome> => {
      if (probesLeftToFail-- > 0) return transient;
      if (probesLeftToFail === -1) await new Promise((resolve) => setTimeout(resolve, slowProbeMs));
      const { commandId, bizId } = context.command;
      return {
        kind: 'completed',
        event: { ...reminderSent, data: { ...reminderSent.data, commandId, bizId } },
      };
    });
    const { runner, breaker, events } = setup({ remind });
    const halfOpenings = vi.fn();
    breaker.onStateChange((state) => state === 'half-open' && halfOpenings());
    for (let i = 0; i < defaultBridgeSettings().breaker.failureThreshold; i++)
      breaker.recordFailure('unreachable');
    let runs = 0;
    const scheduler = new KeyScheduler<Job>({
      worker: (job, yieldSlot) => {
        runs++;
        return runner.run(job, yieldSlot);
      },
      maxInFlight: 8,
      maxPending: commands,
      onError: (error) => {
        throw error;
      },
    });
    for (let i = 0; i < commands; i++) scheduler.push(`biz-${i}`, heldJob(i));
    let elapsedMs = 0;
    while (scheduler.pending > 0 && elapsedMs < 3_600_000) {
      await vi.advanceTimersByTimeAsync(1_000);
      elapsedMs += 1_000;
    }
    const completed = events().filter((r) => r.headers?.ce_type === reminderSent.type).length;
    return {
      runs,
      handlerRuns: remind.mock.calls.length,
      probes: halfOpenings.mock.calls.length,
      completed,
    };
  }

  it.each([
    ['a quick probe after a short outage', 1, 1_000],
    ['a probe slower than the open period after a long outage', 6, 240_000],
  ])(
    'when many commands are held through an outage (%s), then each runs once while held and once after, the handler only for the probes and each command, whatever the outage lasts',
    async (_what, failedProbes, slowProbeMs) => {
      const commands = 300;
      const cost = await outage(commands, failedProbes, slowProbeMs);
      expect(cost.completed).toBe(commands);
      expect(cost.probes).toBe(failedProbes + 1);
      expect(cost.handlerRuns).toBe(failedProbes + commands);
      // Held once, woken once when the circuit closes; a probe (and its retry) runs a few more.
      expect(cost.runs).toBeLessThanOrEqual(2 * commands + 3 * cost.probes);
    },
  );
});
