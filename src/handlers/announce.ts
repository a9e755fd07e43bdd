import type { CommandContext } from './types.js';

/**
 * Records `step` as started before the call that creates something, so that after a crash the
 * step is known to be in doubt. Returns whether it already was: an earlier run announced it and
 * never recorded how it ended, so the platform may have acted on that run's call.
 */
export async function announce(context: CommandContext, step: string): Promise<boolean> {
  if (context.progress.steps[step]?.state === 'started') return true;
  await context.record(step, { state: 'started' });
  return false;
}
