/**
 * One resumable step of the create-contract saga. A step done in an earlier run is not made
 * again: its recorded result is read back. Otherwise it is recorded `started`, called, and
 * recorded `done` with its result and events in one write. A step left `started` by an earlier
 * run is in doubt; its retry may answer with a refusal that proves the earlier call took effect.
 */
import type { z } from 'zod';
import { announce } from '../announce.js';
import { StepFailed } from '../settle.js';
import type { CommandContext, PendingEvent } from '../types.js';

type StepResult = Record<string, unknown>;

export interface SagaStep<R extends StepResult> {
  readonly name: string;
  /** How the ledger keeps the step's result, to read it back on resume. */
  readonly result: z.ZodType<R>;
  call(): Promise<{ readonly result: R; readonly events?: readonly PendingEvent[] }>;
  /** For a step in doubt: the result a refusal proves, when it proves the earlier call worked. */
  reconcile?(error: unknown): R | undefined;
}

export async function runStep<R extends StepResult>(
  context: CommandContext,
  step: SagaStep<R>,
): Promise<R> {
  const earlier = context.progress.steps[step.name];
  if (earlier?.state === 'done') return step.result.parse(earlier.result);
  const { result, events } = await attempt(context, step);
  await context.record(step.name, { state: 'done', result }, events);
  return result;
}

async function attempt<R extends StepResult>(
  context: CommandContext,
  step: SagaStep<R>,
): Promise<{ readonly result: R; readonly events?: readonly PendingEvent[] }> {
  const inDoubt = await announce(context, step.name);
  try {
    return await step.call();
  } catch (error) {
    const reconciled = inDoubt ? step.reconcile?.(error) : undefined;
    if (reconciled === undefined) throw new StepFailed(step.name, error);
    context.log.info(
      { step: step.name },
      'step in doubt settled: the platform says it took effect',
    );
    return { result: reconciled };
  }
}
