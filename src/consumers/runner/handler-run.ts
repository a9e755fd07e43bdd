/**
 * One run of a command's handler, and what the circuit breaker learns from its outcome. Handlers
 * return outcomes and throw only for the unexpected.
 */
import type { Logger } from 'pino';
import {
  HandlerThrew,
  KafkaWriteFailed,
  PlatformRejected,
  SigningBridgeError,
} from '../../errors.js';
import { outcomeOf } from '../../handlers/outcome.js';
import type { CommandContext, Handlers, Outcome } from '../../handlers/types.js';
import { refusedUntilFixed } from '../../kafka/write-refusal.js';
import type { CommandPublisher } from '../../producers/index.js';
import type {
  Command,
  CommandProgress,
  PendingEvent,
  StepRecord,
} from '../../schemas/messages/index.js';
import type { CircuitBreaker } from '../circuit-breaker.js';
import { observed } from '../command-end.js';
import type { Job } from '../job.js';
import type { WritePass } from '../refused-writes.js';

// The step named in a failure when a handler threw instead of returning an outcome.
const HANDLER_STEP = 'handler';

export interface HandlerRunOptions {
  readonly handlers: Handlers;
  readonly publisher: CommandPublisher;
  /** The priority class of each command type (COMMAND_CLASSES). */
  readonly priorityOf: (type: Job['type']) => string;
  readonly log: Logger;
}

/** Undefined when the run was cut short because the partition is being released. */
export async function runHandler(
  job: Job,
  command: Command,
  progress: CommandProgress,
  signal: AbortSignal,
  writes: WritePass,
  options: HandlerRunOptions,
): Promise<Outcome | undefined> {
  const { task } = job;
  const context = new RunContext(job, command, progress, signal, writes, options);
  try {
    const handler = options.handlers[job.type] as (context: CommandContext) => Promise<Outcome>;
    const outcome = await observed(job).run(() => handler(context));
    // Cut short at the release deadline: whatever it says, the next owner decides again.
    return signal.aborted ? undefined : outcome;
  } catch (error) {
    if (signal.aborted || task.revoked) return undefined;
    return outcomeOfThrow(error, job.type, context.log);
  }
}

/** A run's CommandContext: one object per run, its writes and its logger as methods. */
class RunContext implements CommandContext {
  readonly type: Job['type'];
  readonly priority: string;
  readonly #job: Job;
  readonly #writes: WritePass;
  readonly #publisher: CommandPublisher;
  readonly #parentLog: Logger;
  #log: Logger | undefined;

  constructor(
    job: Job,
    readonly command: Command,
    readonly progress: CommandProgress,
    readonly signal: AbortSignal,
    writes: WritePass,
    options: HandlerRunOptions,
  ) {
    this.#job = job;
    this.#writes = writes;
    this.#publisher = options.publisher;
    this.#parentLog = options.log;
    this.type = job.type;
    this.priority = options.priorityOf(job.type);
  }

  record(step: string, record: StepRecord, events: readonly PendingEvent[] = []): Promise<void> {
    const job = this.#job;
    if (record.state === 'started') return this.#started(step);
    return this.#publisher.recordStep(job, this.command, step, record, events, job.task);
  }

  /**
   * A step about to be called, recorded first. Not while Kafka refuses writes until fixed (the
   * gate closed since this run began, and this run is not its probe): the step then fails with
   * that refusal before anything is written, and the command waits to run again
   * (refused-writes.ts). A `started` Kafka refused for good was never written: the entry in
   * memory forgets it, so that the next run does not find the step in doubt.
   */
  async #started(step: string): Promise<void> {
    const job = this.#job;
    const held = this.#writes.held;
    if (held) throw held;
    const started = { state: 'started' } as const;
    // Only with half the lease or more ahead, so that the request can leave well before the
    // lease could end (a `started` whose lease ends first is in doubt without a call).
    await job.task.untilStartable();
    try {
      await this.#publisher.recordStep(job, this.command, step, started, [], job.task);
    } catch (error) {
      if (error instanceof KafkaWriteFailed && !error.retryable) {
        this.#publisher.unrecordStep(job, this.command, step);
      }
      if (refusedUntilFixed(error)) this.#writes.refused(error, 'step');
      throw error;
    }
    this.#writes.written('step');
  }

  forget(step: string): Promise<void> {
    return this.#publisher.forgetStep(this.#job, this.command, step, this.#job.task);
  }

  assertOwned(): void {
    this.#job.task.assertWritable();
  }

  // Made on first use: most runs log nothing.
  get log(): Logger {
    const { commandId, bizId } = this.command;
    this.#log ??= this.#parentLog.child({ commandId, bizId, type: this.type });
    return this.#log;
  }
}

/**
 * An outage the outcome names counts against the platform; an answer of the platform's own
 * (a result, a business refusal) shows it is up. Anything else says nothing of it: a request
 * refused before sending, a document's file host failing (an outage there must not stop every
 * command type), a throttling answer (the rate in force deals with those).
 */
export function recordVerdict(breaker: CircuitBreaker, outcome: Outcome): void {
  if (outcome.kind === 'completed') breaker.recordSuccess();
  else if (outcome.outage !== undefined) breaker.recordFailure(outcome.outage);
  else if (outcome.error instanceof PlatformRejected && !outcome.error.retryable) {
    breaker.recordSuccess();
  }
}

/**
 * An error from our catalogue still gets its usual outcome; anything else is a bug, and retrying
 * a bug changes nothing.
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
