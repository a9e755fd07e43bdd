/**
 * One platform call that changes something, made at most once unless the platform can prove
 * what an earlier one did. Every handler and every step of the create-contract saga goes
 * through here, so the rule of WHEN_IN_DOUBT (src/schemas/platform/in-doubt.ts) holds for all:
 *
 * - The step is recorded `started` (acknowledged by Kafka) right before its request is written:
 *   with its rate token and a slot in hand, its file downloaded, and its partition still this
 *   instance's (the api-client's SendRecorder). After the call it is recorded `done`. A command
 *   stopped while it waits for any of those (a rebalance, a shutdown, a lost lease) has recorded
 *   nothing, and runs on its partition's next owner as if for the first time.
 * - An attempt proven not to have taken effect (refused by the platform, not sent, refused at
 *   authentication, a maintenance page) withdraws `started` at once, before the client tries
 *   again or gives up: meanwhile, and for the next run, the step is not in doubt.
 * - A call whose outcome is unknown, or a step found `started` by a later run (the process died
 *   during the call), is called again only when its operation's row says `reconcile`, and the
 *   answer that proves it took effect then settles it; otherwise the step fails with
 *   CommandOutcomeUnknown, and the platform is not called.
 * - A command sent again after such an ending (the same commandId) makes the call again: that
 *   is what sending it again asks for.
 */
import type { z } from 'zod';
import { verdictOf } from '../api-client/delivery.js';
import type { CallOptions, SendRecorder } from '../api-client/index.js';
import { CommandOutcomeUnknown, SigningBridgeError } from '../errors.js';
import { WHEN_IN_DOUBT } from '../schemas/platform/in-doubt.js';
import type { OperationName } from '../schemas/platform/operations.js';
import { StepFailed } from './settle.js';
import type { CommandContext, PendingEvent } from './types.js';

type StepResult = Record<string, unknown>;

export interface StepCall<R extends StepResult> {
  readonly result: R;
  readonly events?: readonly PendingEvent[];
}

export interface PlatformCall<R extends StepResult> {
  /** Its name in the ledger and in failure events: `approve`, `document:0`, ... */
  readonly name: string;
  /** The operation it calls: its row of WHEN_IN_DOUBT applies. */
  readonly operation: OperationName;
  /** What the call asks for, in a few words and without personal data: `document "NDA"`. */
  readonly sent: string;
  /** Makes the call, passing `options` (the run's signal and priority, the step's recorder). */
  call(options: CallOptions): Promise<StepCall<R>>;
  /** For a step in doubt: the result a refusal proves, when it proves the earlier call worked. */
  reconcile?(error: unknown): R | undefined;
}

export interface PlatformStep<R extends StepResult> extends PlatformCall<R> {
  /** How the ledger keeps the step's result, to read it back on resume. */
  readonly result: z.ZodType<R>;
}

/** A step of a saga: done in an earlier run, its recorded result is read back, not made again. */
export async function runStep<R extends StepResult>(
  context: CommandContext,
  step: PlatformStep<R>,
): Promise<R> {
  const earlier = context.progress.steps[step.name];
  if (earlier?.state === 'done') return step.result.parse(earlier.result);
  const { result, events } = await callOnce(context, step);
  await context.record(step.name, { state: 'done', result }, events);
  return result;
}

/**
 * The call of a command's only step: its `done` is the command's end, which follows at once.
 * @throws StepFailed with what the outcome is to be made of.
 */
export async function callOnce<R extends StepResult>(
  context: CommandContext,
  step: PlatformCall<R>,
): Promise<StepCall<R>> {
  const inDoubt = context.progress.steps[step.name]?.state === 'started';
  const { rule } = WHEN_IN_DOUBT[step.operation];
  if (inDoubt && rule === 'report' && !context.progress.resent) {
    throw new StepFailed(step.name, outcomeUnknown(context, step, undefined));
  }
  const { signal, priority } = context;
  // A step already in doubt stays so whatever this call does: it is not recorded again.
  const recorder = inDoubt ? undefined : stepRecorder(context, step.name);
  try {
    return await step.call({ signal, priority, recorder });
  } catch (error) {
    // Recording the call, or finding the partition lost, failed before anything was sent: the
    // run's own failure, not the call's.
    if (recorder?.refused(error)) throw error;
    const reconciled = inDoubt && rule === 'reconcile' ? step.reconcile?.(error) : undefined;
    if (reconciled === undefined) {
      throw new StepFailed(step.name, afterFailure(context, step, error));
    }
    context.log.info(
      { step: step.name },
      'step in doubt settled: the platform says it took effect',
    );
    return { result: reconciled };
  }
}

/**
 * Records the step `started` right before each attempt's request is written, once the command's
 * partition is known to be still this instance's (checked after the record is acknowledged, at
 * the last moment before the request leaves), and withdraws it when an attempt provably did not
 * apply: not waited for, as a `done` is not (the next write, which is waited for, goes after it).
 */
function stepRecorder(
  context: CommandContext,
  step: string,
): SendRecorder & { refused(error: unknown): boolean } {
  let recorded = false;
  let refusal: unknown;
  return {
    async beforeSend() {
      try {
        if (!recorded) {
          await context.record(step, { state: 'started' });
          recorded = true;
        }
        context.assertOwned();
      } catch (error) {
        refusal = error;
        throw error;
      }
    },
    refused: (error) => refusal !== undefined && error === refusal,
    notApplied() {
      if (!recorded) return;
      recorded = false;
      context.forget(step).catch(() => {});
    },
  };
}

/** What a failed call leaves: unknown when it may have taken effect and cannot be made again. */
function afterFailure(context: CommandContext, step: PlatformCall<StepResult>, error: unknown) {
  if (context.signal.aborted) return error;
  if (verdictOf(error).delivery === 'in-doubt' && WHEN_IN_DOUBT[step.operation].rule === 'report') {
    return outcomeUnknown(context, step, error);
  }
  return error;
}

function outcomeUnknown(
  context: CommandContext,
  step: PlatformCall<StepResult>,
  cause: unknown,
): CommandOutcomeUnknown {
  const { bizId } = context.command;
  const reason =
    cause === undefined
      ? 'the process stopped while the call was under way'
      : `${describe(cause)} after the request was sent`;
  return new CommandOutcomeUnknown(
    `${step.operation} (step ${step.name}: ${step.sent}) was sent to the platform for bizId ${bizId} and its outcome is unknown: ${reason}. ` +
      'The bridge does not call again, since a second call could apply it twice: check the contract on the platform, and send the command again with the same commandId to make the call again.',
    {
      details: {
        operation: step.operation,
        step: step.name,
        sent: step.sent,
        bizId,
        contractId: context.progress.contractId,
        reason,
        causeCode: cause instanceof SigningBridgeError ? cause.code : undefined,
      },
      cause,
    },
  );
}

function describe(error: unknown): string {
  if (!(error instanceof SigningBridgeError)) return String(error);
  const { httpStatus, reason, platformCode } = error.details as {
    httpStatus?: number;
    reason?: string;
    platformCode?: string;
  };
  const detail = platformCode ?? reason ?? (httpStatus === undefined ? '' : `HTTP ${httpStatus}`);
  return detail === '' ? error.code : `${error.code} (${detail})`;
}
