/**
 * The refusals of a decoded command before it runs, as rejections (command.rejected and a
 * dead-letter copy, like a record that is no command): its commandId taken by other content
 * (docs/design.md, "Commands, events, topics"), or its record older than its partition's ledger
 * vouches for.
 */
import { CommandIdReused } from '../../errors.js';
import type { PriorRun } from '../../producers/index.js';
import type { Command } from '../../schemas/messages/index.js';
import type { Job } from '../job.js';
import type { Rejection } from './endings.js';

type FirstUse = Extract<PriorRun, { kind: 'reused' }>['first'];

const HOW: Record<FirstUse['state'], string> = {
  'ended-final': "which ended with the platform's verdict",
  'ended-not-final': 'which ended without a final verdict',
  'under-way': 'which is under way',
};

/** The commandId of this bizId was used by a command with other content. */
export function reusedId(job: Job, command: Command, first: FirstUse): Rejection {
  const { topic, partition, offset } = job.record;
  const { commandId, bizId } = command;
  const fingerprint = job.decoded?.ok ? job.decoded.fingerprint : '';
  const error = new CommandIdReused(
    `${topic}/${partition}@${offset}: commandId ${commandId} of bizId ${bizId} was used before by a command with other content (fingerprint ${first.fingerprint}, ${HOW[first.state]}; this one ${fingerprint}): a commandId names one action of its bizId, so give this command its own`,
    {
      details: {
        topic,
        partition,
        offset,
        commandId,
        bizId,
        firstFingerprint: first.fingerprint,
        fingerprint,
        firstUse: first.state,
      },
    },
  );
  return { ok: false, error, commandId, bizId };
}
