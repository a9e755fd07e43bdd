/**
 * The refusals of a decoded command that the ledger's admission decided (src/ledger/admission.ts),
 * as rejections (command.rejected and a dead-letter copy, like a record that is no command): its
 * commandId taken by other content (docs/design.md, "Commands, events, topics"), or its record
 * older than its partition's ledger vouches for.
 */
import { CommandExpired, CommandIdReused } from '../../errors.js';
import type { Admission } from '../../ledger/index.js';
import type { Command } from '../../schemas/messages/index.js';
import type { Job } from '../job.js';
import type { Rejection } from './endings.js';

type FirstUse = Extract<Admission, { kind: 'reused' }>['first'];

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

/**
 * The record was produced at `produced`, before `since`, the oldest time its partition's ledger
 * vouches for (the replay window's start, ledger-upkeep.ts, or later where the memory bound
 * evicted entries, entry-store.ts): if it ran, its entry may have expired, so it is refused
 * rather than run a second time. A new group, a deleted one, or offsets expired after the group
 * stood still read command topics from the beginning.
 */
export function expiry(job: Job, produced: number, since: number): Rejection {
  const { topic, partition, offset } = job.record;
  const commandId = job.decoded?.ok ? job.decoded.command.commandId : undefined;
  const bizId = job.decoded?.ok ? job.decoded.command.bizId : undefined;
  const recordTime = new Date(produced).toISOString();
  const vouched = new Date(since).toISOString();
  const error = new CommandExpired(
    `${topic}/${partition}@${offset}: the record was written at ${recordTime}, before ${vouched}, the oldest time this partition's ledger vouches for (LEDGER_REPLAY_WINDOW, later where its memory bound LEDGER_MEMORY_BYTES evicted entries): whether it already ran is no longer known, so it is not run. Send the command again if it is still wanted`,
    { details: { topic, partition, offset, recordTime, vouchedSince: vouched } },
  );
  return { ok: false, error, commandId, bizId };
}
