/**
 * Use cases are written as straight-line flows that throw; `settle` turns how one ended into its
 * Outcome. A failure inside a saga step carries that step's name; any other failure belongs to
 * the use case's own step.
 */
import { outcomeOf } from './outcome.js';
import type { Outcome, PendingEvent } from './types.js';

/** A saga step failed: its name, and what it failed with. */
export class StepFailed extends Error {
  constructor(
    readonly step: string,
    override readonly cause: unknown,
  ) {
    super(`step ${step} failed`, { cause });
  }
}

/** Runs the flow; its terminal event completes the command, its failure becomes the outcome. */
export async function settle(step: string, flow: () => Promise<PendingEvent>): Promise<Outcome> {
  try {
    return { kind: 'completed', event: await flow() };
  } catch (error) {
    if (error instanceof StepFailed) return outcomeOf(error.step, error.cause);
    return outcomeOf(step, error);
  }
}
