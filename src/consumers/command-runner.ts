/**
 * One run of one command: read it, skip it if it already ended, call its handler, and act on
 * the outcome. Runs after the first are retries the scheduler brings back after their delay.
 */
import type { Logger } from 'pino';
import {
  CommandCrashLoop,
  EventInvalid,
  HandlerThrew,
  KafkaWriteFailed,
  OutboxClosed,
  PartitionReleased,
  PlatformRejected,
  SigningBridgeError,
} from '../errors.js';
import { outcomeOf } from '../handlers/outcome.js';
import type { CommandContext, Handlers, Outcome, PendingEvent } from '../handlers/types.js';
import { progressOf } from '../ledger/index.js';
import type { Lease } from '../partitions/index.js';
import {
  type CommandRef,
  failedEvent,
  gaveUpEvent,
  preconditionTimedOutEvent,
} from '../producers/index.js';
import { spread } from '../retry/backoff.js';
import type { Command } from '../schemas/messages/index.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { decodeCommand } from './command-decoding.js';
import { commandEnd, observed } from './command-end.js';
import type { CommandPublisher } from './command-publisher.js';
import type { Job } from './job.js';
import type { RunVerdict } from './key-scheduler.js';
import { type Decision, decide } from './retry-decision.js';
import type { BridgeObserver, BridgeSettings, CommandEnding } from './settings.js';

// How soon a command held back by an open circuit looks again, at the least.
const BREAKER_RECHECK_MS = 250;
// The step named in a failure when a handler threw instead of returning an outcome.
const HANDLER_STEP = 'handler';

export interface RunnerOptions {
  readonly handlers: Handlers;
  readonly publisher: CommandPublisher;
  readonly leaseOf: (partition: number) => Lease | undefined;
  /** Marks the record's offset finished, so it can be committed. */
  readonly finish: (job: Job) => void;
  readonly breaker: CircuitBreaker;
  readonly settings: BridgeSettings;
  readonly observer: BridgeObserver;
  readonly log: Logger;
}

export class CommandRunner {
  readonly #options: RunnerOptions;

  constructor(options: RunnerOptions) {
    this.#options = options;
  }

  /**
   * Resolves with a retry request, or undefined once the command ended or was left to others.
   * `yieldSlot` is called once the command's ending is handed to the outbox: waiting for Kafka to
   * acknowledge it takes no slot from other keys.
   */
  async run(job: Job, yieldSlot: () => void): Promise<RunVerdict> {
    const lease = this.#options.leaseOf(job.record.partition);
    // Not ours any more: left unfinished for the next owner.
    if (!lease?.canStart) return undefined;
    // The run counts as running on its partition until its writes are handed to the outbox, so
    // a release (which flushes the outbox) never comes between its end and that end's write.
    const controller = lease.startRun();
    let running = true;
    const handedOver = () => {
      if (running) lease.endRun(controller);
      running = false;
      yieldSlot();
    };
    try {
      return await this.#run(job, lease, controller, handedOver);
    } catch (error) {
      // Left unfinished: the partition's next owner runs the command again.
      if (error instanceof PartitionReleased || error instanceof OutboxClosed) return undefined;
      throw error;
    } finally {
      if (running) lease.endRun(controller);
    }
  }

  async #run(
    job: Job,
    lease: Lease,
    controller: AbortController,
    handedOver: () => void,
  ): Promise<RunVerdict> {
    if (job.forwardTo !== undefined && (await this.#forwarded(job, job.forwardTo, lease))) {
      return undefined;
    }
    if (job.admitted && !(await job.admitted)) return undefined;
    if (job.careful) {
      const verdict = await lease.guard?.beforeCarefulRun(job.record);
      if (verdict === 'left') return undefined;
      if (verdict === 'dead-letter') return this.#deadLetterCrashLoop(job, lease);
    }
    job.firstRunAt ??= performance.now();
    job.observation ??= this.#options.observer.commandStarted?.({
      type: job.type,
      record: job.record,
    });
    job.decoded ??= decodeCommand(job.record, job.type, this.#options.settings.limits);
    const { publisher } = this.#options;
    if (!job.decoded.ok) {
      if (!publisher.wasRejected(job)) await this.#reject(job, job.decoded, lease);
      return this.#finished(job, 'rejected', job.decoded.error);
    }
    const { command } = job.decoded;
    if (publisher.hasEnded(job, command.commandId)) return this.#finished(job, 'duplicate');
    const { breaker } = this.#options;
    if (!breaker.canPass()) {
      const wait = Math.max(breaker.remainingOpenMs(), BREAKER_RECHECK_MS);
      return { retryInMs: spread(wait, 0.5) };
    }
    job.runs++;
    const outcome = await this.#runHandler(job, command, lease, controller);
    if (outcome === undefined) return undefined;
    this.#recordVerdict(outcome);
    const decision = decide(outcome, job.history, this.#options.settings, performance.now());
    return this.#act(job, command, decision, lease, handedOver);
  }

  /** Undefined when the run was cut short because the partition is being released. */
  async #runHandler(
    job: Job,
    command: Command,
    lease: Lease,
    controller: AbortController,
  ): Promise<Outcome | undefined> {
    const { publisher, handlers, log } = this.#options;
    let child: Logger | undefined;
    const context: CommandContext = {
      type: job.type,
      command,
      progress: progressOf(publisher.entry(job), command.commandId),
      record: (step, record, events = []) =>
        publisher.recordStep(job, command, step, record, events, lease),
      forget: (step) => publisher.forgetStep(job, command, step, lease),
      signal: controller.signal,
      priority: this.#options.settings.classes.of[job.type],
      // Made on first use: most runs log nothing.
      get log() {
        child ??= log.child({ commandId: command.commandId, bizId: command.bizId, type: job.type });
        return child;
      },
    };
    try {
      const handler = handlers[job.type] as (context: CommandContext) => Promise<Outcome>;
      const outcome = await observed(job).run(() => handler(context));
      // Cut short at the release deadline: whatever it says, the next owner decides again.
      return controller.signal.aborted ? undefined : outcome;
    } catch (error) {
      if (controller.signal.aborted || lease.revoked) return undefined;
      return outcomeOfThrow(error, job.type, context.log);
    }
  }

  /**
   * An outage the outcome names counts against the platform; an answer of the platform's own
   * (a result, a business refusal) shows it is up. Anything else says nothing of it: a request
   * refused before sending, a document's file host failing (an outage there must not stop every
   * command type), a throttling answer (the rate in force deals with those).
   */
  #recordVerdict(outcome: Outcome): void {
    const { breaker } = this.#options;
    if (outcome.kind === 'completed') breaker.recordSuccess();
    else if (outcome.outage !== undefined) breaker.recordFailure(outcome.outage);
    else if (outcome.error instanceof PlatformRejected && !outcome.error.retryable) {
      breaker.recordSuccess();
    }
  }

  async #act(
    job: Job,
    command: Command,
    decision: Decision,
    lease: Lease,
    handedOver: () => void,
  ): Promise<RunVerdict> {
    if (decision.kind === 'retry') {
      // Its partition is being released: the next owner runs it again, so nothing is booked here.
      if (!lease.canStart) return undefined;
      job.history = decision.history;
      const { reason, delayMs } = decision;
      this.#options.observer.retryScheduled?.({ type: job.type, reason, delayMs });
      return { retryInMs: delayMs };
    }
    const ref: CommandRef = {
      commandId: command.commandId,
      bizId: command.bizId,
      commandType: job.type,
      contractId: this.#options.publisher.entry(job).contractId,
    };
    // Gave up or timed out: the bridge could not finish it, so the commandId is not spent.
    const final = decision.kind === 'complete' || (decision.outcome === 'failed' && decision.final);
    const event = endingEvent(decision, ref, final);
    const ending = decision.kind === 'complete' ? 'completed' : decision.outcome;
    const cause = decision.kind === 'complete' ? undefined : decision.error;
    try {
      const acknowledged = observed(job).publish(() =>
        this.#options.publisher.end(job, command, event, lease, final),
      );
      handedOver();
      await acknowledged;
    } catch (error) {
      if (!(error instanceof EventInvalid || isRefusedForGood(error))) throw error;
      // The ending could not be published (a result event breaking its schema, a record Kafka
      // refused): the command still ends, with a failure that says why.
      this.#options.log.error({ err: error, commandId: command.commandId }, 'ending not written');
      await this.#endWithFailure(job, command, failedEvent(ref, event.step, error, false), lease);
      return this.#finished(job, 'failed', error);
    }
    return this.#finished(job, ending, cause);
  }

  /**
   * The last resort of a command whose ending Kafka refused: if even its small failure event is
   * refused (the events topic not writable, say), the offset still finishes rather than stop the
   * partition for good; the log says so.
   */
  async #endWithFailure(job: Job, command: Command, event: PendingEvent, lease: Lease) {
    try {
      await observed(job).publish(() =>
        this.#options.publisher.end(job, command, event, lease, false),
      );
    } catch (error) {
      if (!isRefusedForGood(error)) throw error;
      const { commandId } = command;
      this.#options.log.error({ err: error, commandId }, 'failure event not written; command ends');
    }
  }

  /**
   * Forwards the record to the partition its key belongs to (unless an earlier owner did) and
   * finishes it here once Kafka has the copy. Refused for good, it runs here instead: false.
   */
  async #forwarded(job: Job, partition: number, lease: Lease): Promise<boolean> {
    const { topic, offset } = job.record;
    const { publisher, observer, log, finish } = this.#options;
    if (BigInt(offset) > (lease.forwarded.get(topic) ?? -1n)) {
      try {
        await publisher.forward(job, partition, lease);
      } catch (error) {
        if (!isRefusedForGood(error)) throw error;
        log.error({ err: error, topic, offset, partition }, 'not forwarded; running it here');
        // For good: a retry of its run must run it here too, not try to forward it again.
        job.forwardTo = undefined;
        return false;
      }
      observer.recordForwarded?.({ type: job.type });
    }
    finish(job);
    return true;
  }

  /** It killed the process too often while it ran alone: rejected without being read. */
  async #deadLetterCrashLoop(job: Job, lease: Lease): Promise<RunVerdict> {
    const { topic, partition, offset } = job.record;
    const deaths = this.#options.settings.crashLoopLimit;
    const error = new CommandCrashLoop(
      `${topic}/${partition}@${offset}: the process died ${deaths} times while this record ran alone; it is dead-lettered instead of run again (CRASH_LOOP_LIMIT)`,
      { details: { topic, partition, offset, deaths } },
    );
    this.#options.log.error(
      { topic, partition, offset, deaths },
      'record kills the process; dead-lettered',
    );
    if (!this.#options.publisher.wasRejected(job))
      await this.#reject(job, { ok: false, error }, lease);
    return this.#finished(job, 'rejected', error);
  }

  /** Dead letter and rejected event; without the dead letter when Kafka refuses it for good. */
  async #reject(
    job: Job,
    decoded: Exclude<Job['decoded'], { ok: true } | undefined>,
    lease: Lease,
  ) {
    const { publisher, observer, log } = this.#options;
    try {
      await observed(job).publish(() => publisher.reject(job, decoded, lease));
      observer.deadLettered?.({ type: job.type, reason: decoded.error.code });
    } catch (error) {
      if (!isRefusedForGood(error)) throw error;
      const { topic, partition, offset } = job.record;
      log.error({ err: error, topic, partition, offset }, 'dead letter not written');
      await publisher.reject(job, decoded, lease, { deadLetter: false }).catch((again: unknown) => {
        if (!isRefusedForGood(again)) throw again;
        log.error({ err: again, topic, partition, offset }, 'rejection not written; record ends');
      });
    }
  }

  #finished(job: Job, outcome: CommandEnding, error?: SigningBridgeError): undefined {
    this.#options.finish(job);
    const end = commandEnd(job, outcome, error);
    job.observation?.end(end);
    this.#options.observer.commandFinished?.(end);
    return undefined;
  }
}

function endingEvent(
  decision: Exclude<Decision, { kind: 'retry' }>,
  ref: CommandRef,
  final: boolean,
): PendingEvent {
  if (decision.kind === 'complete') return decision.event;
  switch (decision.outcome) {
    case 'failed':
      return failedEvent(ref, decision.step, decision.error, final);
    case 'gave-up':
      return gaveUpEvent(ref, decision.step, decision.attempts, decision.error);
    case 'precondition-timed-out':
      return preconditionTimedOutEvent(ref, decision.step, decision.waitedMs, decision.error);
  }
}

function isRefusedForGood(error: unknown): error is KafkaWriteFailed {
  return error instanceof KafkaWriteFailed && !error.retryable;
}

/**
 * Handlers return outcomes and throw only for the unexpected. An error from our catalogue still
 * gets its usual outcome; anything else is a bug, and retrying a bug changes nothing.
 */
function outcomeOfThrow(error: unknown, type: string, log: Logger): Outcome {
  if (error instanceof SigningBridgeError) return outcomeOf(HANDLER_STEP, error);
  log.error({ err: error }, 'handler threw');
  const message = error instanceof Error ? error.message : String(error);
  const failure = new HandlerThrew(`the ${type} handler threw: ${message}`, {
    details: { type, step: HANDLER_STEP },
    cause: error,
  });
  return { kind: 'failed', step: HANDLER_STEP, error: failure, final: false };
}
