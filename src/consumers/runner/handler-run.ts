/**
 * One run of a command's handler, and what the circuit breaker learns from its outcome. Handlers
 * return outcomes and throw only for the unexpected.
 */
import type { Logger } from 'pino';
import { HandlerThrew, PlatformRejected, SigningBridgeError } from '../../errors.js';
import { outcomeOf } from '../../handlers/outcome.js';
import type { CommandContext, Handlers, Outcome } from '../../handlers/types.js';
import { progressOf } from '../../ledger/index.js';
import type { CommandPublisher } from '../../producers/index.js';
import type { Command } from '../../schemas/messages/index.js';
import type { CircuitBreaker } from '../circuit-breaker.js';
import { observed } from '../command-end.js';
import type { Job } from '../job.js';

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
  controller: AbortController,
  options: HandlerRunOptions,
): Promise<Outcome | undefined> {
  const { publisher, handlers, log } = options;
  const { task } = job;
  let child: Logger | undefined;
  const context: CommandContext = {
    type: job.type,
    command,
    progress: progressOf(publisher.entry(job), command.commandId),
    record: (step, record, events = []) =>
      publisher.recordStep(job, command, step, record, events, task),
    forget: (step) => publisher.forgetStep(job, command, step, task),
    signal: controller.signal,
    priority: options.priorityOf(job.type),
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
    if (controller.signal.aborted || task.revoked) return undefined;
    return outcomeOfThrow(error, job.type, context.log);
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
