/**
 * How a command ends: choosing its terminal event from the decision, writing it (with the
 * ledger's end mark, in one write), and what happens when Kafka refuses a write for good; and a
 * rejected record's dead letter. Every ending finishes the record's offset and tells the observer.
 *
 * A refusal of this one record (too large: src/kafka/write-refusal.ts) ends the command with a
 * failure that says so (a rejection, without its dead letter). A refusal until fixed (an ACL, the
 * clock, a policy) drops nothing: the command keeps its ending, its offset stays unfinished, the
 * gate of refused-writes.ts holds every command back, and the same ending is written again when
 * this command probes or the gate opens.
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
import { refusedUntilFixed } from '../../kafka/write-refusal.js';
import { type Ledger, type LedgerEntry, rejectedBefore } from '../../ledger/index.js';
import type { CommandPublisher } from '../../producers/index.js';
import type { Command, PendingEvent } from '../../schemas/messages/index.js';
import { commandEnd, observed } from '../command-end.js';
import { finishJob, type Job } from '../job.js';
import type { RunVerdict } from '../key-scheduler.js';
import type { RefusedWrites, WriteKind, WritePass } from '../refused-writes.js';
import type { Decision } from '../retry-decision.js';
import type { BridgeObserver, CommandEnding } from '../settings.js';

export type Rejection = Exclude<Job['decoded'], { ok: true } | undefined>;

export interface EndingsOptions {
  readonly publisher: CommandPublisher;
  /** Where a record's earlier rejection is found (a replay is rejected once). */
  readonly ledger: Pick<Ledger, 'get'>;
  readonly observer: BridgeObserver;
  readonly crashLoopLimit: number;
  /** Where a write refused until fixed holds every command (refused-writes.ts). */
  readonly refusals: RefusedWrites;
  readonly log: Logger;
}

/** An ending to write: its event, whether it spends the commandId, and how the command ends. */
interface Ending {
  readonly command: Command;
  readonly ref: CommandRef;
  readonly event: PendingEvent;
  readonly final: boolean;
  readonly outcome: CommandEnding;
  readonly cause: SigningBridgeError | undefined;
  /** The failure written in place of an ending Kafka refused for what it was: the last resort. */
  readonly fallback?: true;
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
    pass: WritePass,
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
    const { publisher } = this.#options;
    const ref: CommandRef = {
      commandId: command.commandId,
      bizId: command.bizId,
      commandType: job.type,
      contractId: publisher.entry(job).contractId,
    };
    // Gave up or timed out: the bridge could not finish it, so the commandId is not spent.
    const final = decision.kind === 'complete' || (decision.outcome === 'failed' && decision.final);
    return this.#end(job, pass, handedOver, {
      command,
      ref,
      event: endingEvent(decision, ref, final),
      final,
      outcome: decision.kind === 'complete' ? 'completed' : decision.outcome,
      cause: decision.kind === 'complete' ? undefined : decision.error,
    });
  }

  /**
   * Writes the ending. Refused until fixed: kept on the job, to be written again (write-refusal.ts).
   * Refused for what it is (a result event breaking its schema, a record too large): the command
   * still ends, with a failure that says why; if even that is refused for what it is, the offset
   * finishes rather than stop the partition for good, and the log says so.
   */
  async #end(
    job: Job,
    pass: WritePass,
    handedOver: () => void,
    ending: Ending,
  ): Promise<RunVerdict> {
    const { publisher, log } = this.#options;
    const { command, event, final } = ending;
    const before = publisher.entry(job);
    try {
      const acknowledged = observed(job).publish(() =>
        publisher.end(job, command, event, job.task, final),
      );
      handedOver();
      await acknowledged;
    } catch (error) {
      if (refusedUntilFixed(error)) {
        this.#reopen(job, before, pass);
        return this.#held(job, pass, error, 'ending', (again, done) =>
          this.#end(job, again, done, ending),
        );
      }
      if (!(error instanceof EventInvalid || isRefusedForGood(error))) throw error;
      const { commandId } = command;
      if (ending.fallback) {
        log.error({ err: error, commandId }, 'failure event not written; command ends');
        return this.finished(job, 'failed', ending.cause);
      }
      // The ending could not be published (a result event breaking its schema, a record Kafka
      // refused): the command still ends, with a failure that says why.
      log.error({ err: error, commandId }, 'ending not written');
      return this.#end(job, pass, handedOver, {
        command,
        ref: ending.ref,
        event: failedEvent(ending.ref, event.step, error, false),
        final: false,
        outcome: 'failed',
        cause: error,
        fallback: true,
      });
    }
    pass.written('ending');
    return this.finished(job, ending.outcome, ending.cause);
  }

  /**
   * Kafka refused the write until fixed: the gate closes (or stays closed) and the command waits
   * without a slot, its offset unfinished, until it may write `again`.
   */
  #held(
    job: Job,
    pass: WritePass,
    error: KafkaWriteFailed,
    kind: WriteKind,
    again: NonNullable<Job['unwritten']>,
  ): RunVerdict {
    pass.refused(error, kind);
    job.unwritten = again;
    return { retryInMs: Number.POSITIVE_INFINITY, until: this.#options.refusals.wake(true) };
  }

  /**
   * The ledger's part of a refused write may have been taken without the rest (one request per
   * broker): whoever finds the command next finds it as it was, not ended without its event. The
   * ledger taking that write tells the gate it is not the topic refusing.
   */
  #reopen(job: Job, before: LedgerEntry, pass: WritePass): void {
    void this.#options.publisher.reopen(job, before, job.task).then((taken) => {
      if (taken) pass.written('step');
    });
  }

  /** What Kafka refused until fixed, written again; the ending or rejection follows as before. */
  writeAgain(job: Job, pass: WritePass, handedOver: () => void): Promise<RunVerdict> {
    const again = job.unwritten as NonNullable<Job['unwritten']>;
    job.unwritten = undefined;
    return again(pass, handedOver);
  }

  /** A record that is no command: its dead letter and rejected event, once per record. */
  async reject(job: Job, rejection: Rejection, pass: WritePass): Promise<RunVerdict> {
    const entry = this.#options.ledger.get(job.record.partition, job.key);
    if (rejectedBefore(entry, job.record)) return this.finished(job, 'rejected', rejection.error);
    return this.#reject(job, rejection, pass, true);
  }

  /** It killed the process too often while it ran alone: rejected without being read. */
  deadLetterCrashLoop(job: Job, pass: WritePass): Promise<RunVerdict> {
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
    return this.reject(job, { ok: false, error }, pass);
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
   * Dead letter and rejected event; without the dead letter when Kafka refuses it for what it is
   * (the record ends even if the rejected event alone is refused so); held like an ending when
   * refused until fixed.
   */
  async #reject(
    job: Job,
    decoded: Rejection,
    pass: WritePass,
    deadLetter: boolean,
  ): Promise<RunVerdict> {
    const { publisher, observer, log } = this.#options;
    const { topic, partition, offset } = job.record;
    const before = publisher.entry(job);
    try {
      await observed(job).publish(() => publisher.reject(job, decoded, job.task, { deadLetter }));
    } catch (error) {
      if (refusedUntilFixed(error)) {
        if (job.record.key !== null) this.#reopen(job, before, pass);
        return this.#held(job, pass, error, deadLetter ? 'rejection' : 'ending', (again) =>
          this.#reject(job, decoded, again, deadLetter),
        );
      }
      if (!isRefusedForGood(error)) throw error;
      if (!deadLetter) {
        log.error({ err: error, topic, partition, offset }, 'rejection not written; record ends');
        return this.finished(job, 'rejected', decoded.error);
      }
      log.error({ err: error, topic, partition, offset }, 'dead letter not written');
      return this.#reject(job, decoded, pass, false);
    }
    pass.written(deadLetter ? 'rejection' : 'ending');
    if (deadLetter) observer.deadLettered?.({ type: job.type, reason: decoded.error.code });
    return this.finished(job, 'rejected', decoded.error);
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
