/** What the observer is told of a command's end, and the observation that follows it there. */
import { PlatformRejected, type SigningBridgeError } from '../errors.js';
import { excerpt, ID_EXCERPT_MAX_CHARS } from '../events/index.js';
import type { Job } from './job.js';
import { type CommandEnd, type CommandEnding, UNOBSERVED } from './settings.js';

export function observed(job: Job) {
  return job.observation ?? UNOBSERVED;
}

export function commandEnd(
  job: Job,
  outcome: CommandEnding,
  error: SigningBridgeError | undefined,
): CommandEnd {
  const { topic, partition, offset } = job.record;
  return {
    type: job.type,
    outcome,
    durationMs: job.firstRunAt === undefined ? 0 : performance.now() - job.firstRunAt,
    attempts: job.runs,
    ...commandIds(job),
    record: { topic, partition, offset },
    errorCode: error?.code,
    platformCode: error instanceof PlatformRejected ? error.details.platformCode : undefined,
    traceId: job.observation?.traceId,
  };
}

/** A broken record's ids are whatever it held: bounded excerpts, as in its rejected event. */
function commandIds({ decoded }: Job): { commandId?: string; bizId?: string } {
  if (decoded?.ok) return { commandId: decoded.command.commandId, bizId: decoded.command.bizId };
  const bounded = (id: string | undefined) => id && excerpt(id, ID_EXCERPT_MAX_CHARS);
  return { commandId: bounded(decoded?.commandId), bizId: bounded(decoded?.bizId) };
}
