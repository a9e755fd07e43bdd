/**
 * The refusals of a decoded command before it runs, as rejections (command.rejected and a
 * dead-letter copy, like a record that is no command): its commandId taken by other content
 * (docs/design.md, "Commands, events, topics"), or its record older than its partition's ledger
 * vouches for.
 */
import { CommandExpired, CommandIdReused } from '../../errors.js';
import { vouchedSince } from '../../partitions/index.js';
import { type PriorRun, producedTime } from '../../producers/index.js';
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

/**
 * The record is older than its partition's ledger vouches for (ledger-upkeep.ts): if it ran, its
 * entry may have expired, so it is refused rather than run a second time. A new group, a deleted
 * one, or offsets expired after the group stood still read command topics from the beginning.
 * Checked once per record, before its first run: a record this instance holds and retries has
 * been checked, and one whose commandId the ledger knows is decided by the ledger.
 */
export function expiry(job: Job, windowMs: number, nowMs: number): Rejection | undefined {
  const produced = producedTime(job.record);
  const since = vouchedSince(nowMs, windowMs);
  if (produced === undefined || produced >= since) return undefined;
  const { topic, partition, offset } = job.record;
  const commandId = job.decoded?.ok ? job.decoded.command.commandId : undefined;
  const bizId = job.decoded?.ok ? job.decoded.command.bizId : undefined;
  const recordTime = new Date(produced).toISOString();
  const vouched = new Date(since).toISOString();
  const error = new CommandExpired(
    `${topic}/${partition}@${offset}: the record was written at ${recordTime}, before ${vouched}, the oldest time this partition's ledger vouches for (LEDGER_REPLAY_WINDOW): whether it already ran is no longer known, so it is not run. Send the command again if it is still wanted`,
    { details: { topic, partition, offset, recordTime, vouchedSince: vouched } },
  );
  return { ok: false, error, commandId, bizId };
}
