/**
 * How a command ends: choosing its terminal event from the decision, writing it (with the
 * ledger's end mark, in one write), and the fallbacks when Kafka refuses a write for good; and a
 * rejected record's dead letter. Every ending finishes the record's offset and tells the observer.
 */
import type { Logger } from 'pino';
import {
  CommandCrashLoop,
  EventInvalid,
  KafkaWriteFailed,
  type SigningBridgeError,
} from '../../errors.js';
import {
  type CommandRef,
  failedEvent,
  gaveUpEvent,
  preconditionTimedOutEvent,
} from '../../events/index.js';
import { type Ledger, rejectedBefore } from '../../ledger/index.js';
import type { CommandPublisher } from '../../producers/index.js';
import type { Command, PendingEvent } from '../../schemas/messages/index.js';
import { commandEnd, observed } from '../command-end.js';
import { finishJob, type Job } from '../job.js';
import type { RunVerdict } from '../key-scheduler.js';
import type { Decision } from '../retry-decision.js';
import type { BridgeObserver, CommandEnding } from '../settings.js';

export type Rejection = Exclude<Job['decoded'], { ok: true } | undefined>;

export interface EndingsOptions {
  readonly publisher: CommandPublisher;
  /** Where a record's earlier rejection is found (a replay is rejected once). */
  readonly ledger: Pick<Ledger, 'get'>;
  readonly observer: BridgeObserver;
  readonly crashLoopLimit: number;
  readonly log: Logger;
}

export class Endings {
  readonly #options: EndingsOptions;

  constructor(options: EndingsOptions) {
    this.#options = options;
  }

  /**
   * A retry is booked, or the command ends with its event. `handedOver` is called once the
   * ending is handed to the outbox (the slot is then free while Kafka acknowledges it).
   */
  async act(
    job: Job,
    command: Command,
    decision: Decision,
    handedOver: () => void,
  ): Promise<RunVerdict> {
    if (decision.kind === 'retry') {
      // Its partition is being released: the next owner runs it again, so nothing is booked here.
      if (!job.task.canStart) return undefined;
      job.history = decision.history;
      const { reason, delayMs } = decision;
      this.#options.observer.retryScheduled?.({ type: job.type, reason, delayMs });
      return { retryInMs: delayMs };
    }
    const { publisher, log } = this.#options;
    const ref: CommandRef = {
      commandId: command.commandId,
      bizId: command.bizId,
      commandType: job.type,
      contractId: publisher.entry(job).contractId,
    };
    // Gave up or timed out: the bridge could not finish it, so the commandId is not spent.
    const final = decision.kind === 'complete' || (decision.outcome === 'failed' && decision.final);
    const event = endingEvent(decision, ref, final);
    const ending = decision.kind === 'complete' ? 'completed' : decision.outcome;
    const cause = decision.kind === 'complete' ? undefined : decision.error;
    try {
      const acknowledged = observed(job).publish(() =>
        publisher.end(job, command, event, job.task, final),
      );
      handedOver();
      await acknowledged;
    } catch (error) {
      if (!(error instanceof EventInvalid || isRefusedForGood(error))) throw error;
      // The ending could not be published (a result event breaking its schema, a record Kafka
      // refused): the command still ends, with a failure that says why.
      log.error({ err: error, commandId: command.commandId }, 'ending not written');
      await this.#endWithFailure(job, command, failedEvent(ref, event.step, error, false));
      return this.finished(job, 'failed', error);
    }
    return this.finished(job, ending, cause);
  }

  /** A record that is no command: its dead letter and rejected event, once per record. */
  async reject(job: Job, rejection: Rejection): Promise<RunVerdict> {
    const entry = this.#options.ledger.get(job.record.partition, job.key);
    if (!rejectedBefore(entry, job.record)) await this.#reject(job, rejection);
    return this.finished(job, 'rejected', rejection.error);
  }

  /** It killed the process too often while it ran alone: rejected without being read. */
  deadLetterCrashLoop(job: Job): Promise<RunVerdict> {
    const { topic, partition, offset } = job.record;
    const deaths = this.#options.crashLoopLimit;
    const error = new CommandCrashLoop(
      `${topic}/${partition}@${offset}: the process died ${deaths} times while this record ran alone; it is dead-lettered instead of run again (CRASH_LOOP_LIMIT)`,
      { details: { topic, partition, offset, deaths } },
    );
    this.#options.log.error(
      { topic, partition, offset, deaths },
      'record kills the process; dead-lettered',
    );
    return this.reject(job, { ok: false, error });
  }

  /** The record's offset is finished and the observer told how the command ended. */
  finished(job: Job, outcome: CommandEnding, error?: SigningBridgeError): undefined {
    finishJob(job);
    const end = commandEnd(job, outcome, error);
    job.observation?.end(end);
    this.#options.observer.commandFinished?.(end);
    return undefined;
  }

  /**
   * The last resort of a command whose ending Kafka refused: if even its small failure event is
   * refused (the events topic not writable, say), the offset still finishes rather than stop the
   * partition for good; the log says so.
   */
  async #endWithFailure(job: Job, command: Command, event: PendingEvent): Promise<void> {
    const { publisher, log } = this.#options;
    try {
      await observed(job).publish(() => publisher.end(job, command, event, job.task, false));
    } catch (error) {
      if (!isRefusedForGood(error)) throw error;
      const { commandId } = command;
      log.error({ err: error, commandId }, 'failure event not written; command ends');
    }
  }

  /** Dead letter and rejected event; without the dead letter when Kafka refuses it for good. */
  async #reject(job: Job, decoded: Rejection): Promise<void> {
    const { publisher, observer, log } = this.#options;
    try {
      await observed(job).publish(() => publisher.reject(job, decoded, job.task));
      observer.deadLettered?.({ type: job.type, reason: decoded.error.code });
    } catch (error) {
      if (!isRefusedForGood(error)) throw error;
      const { topic, partition, offset } = job.record;
      log.error({ err: error, topic, partition, offset }, 'dead letter not written');
      await publisher
        .reject(job, decoded, job.task, { deadLetter: false })
        .catch((again: unknown) => {
          if (!isRefusedForGood(again)) throw again;
          log.error({ err: again, topic, partition, offset }, 'rejection not written; record ends');
        });
    }
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

export function isRefusedForGood(error: unknown): error is KafkaWriteFailed {
  return error instanceof KafkaWriteFailed && !error.retryable;
}
