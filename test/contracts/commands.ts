/**
 * Commands that make the bridge write every kind of record it writes: each event type once at
 * least, a dead letter of a record with a key and one without. Shared by the contract tests.
 */
import { isTerminal } from '../../src/schemas/messages/index.js';
import {
  APPROVER,
  fileDocument,
  initiator,
  meta,
  person,
  SEAL,
  templateDocument,
} from '../handlers/support/fixtures.js';
import type { ServicePipeline } from '../support/service-pipeline.js';
import type { RawRecord } from '../support/topic-reader.js';
import { uniqueId } from '../support/unique.js';

const AUDITED = [
  { type: 'AUDIT', operators: [APPROVER] },
  { type: 'COMPANY', sealId: SEAL },
];

/** A draft the platform refuses (11041701): its approver is no employee. */
export function refusedContract(contact = '13912345678', contactType = 'MOBILE') {
  const bizId = uniqueId('refused');
  const audit = { type: 'AUDIT', operators: [{ contact, contactType }] };
  const signatories = [initiator([audit, { type: 'COMPANY', sealId: SEAL }]), person(1)];
  return { ...meta(bizId), payload: { contract: { subject: bizId, signatories } } };
}

/** Whether `record` is the terminal event of command `commandId`. */
export function endsCommand(record: RawRecord, commandId: string): boolean {
  const type = record.headers.ce_type;
  if (record.headers.ce_correlationid !== commandId || type === undefined || !record.value) {
    return false;
  }
  const data = JSON.parse(record.value) as { commandType: never };
  return isTerminal(type as never, data.commandType);
}

/**
 * Sends one command, unchecked (some break their schema on purpose, as a producer without the
 * SDK may send them), and resolves with its terminal event's type.
 */
export async function run(
  pipeline: ServicePipeline,
  type: Parameters<ServicePipeline['sender']['send']>[0][number]['type'],
  command: { commandId: string; bizId: string; payload: unknown },
): Promise<string> {
  const topic = pipeline.topics.commands[type];
  await pipeline.sender.sendRaw(topic, command.bizId, JSON.stringify(command));
  await pipeline.reader.waitUntil(
    (records) => records.some((r) => endsCommand(r, command.commandId)),
    30_000,
    `the terminal event of ${type} ${command.commandId}`,
  );
  const ending = pipeline.reader.records.find((r) => endsCommand(r, command.commandId));
  return ending?.headers.ce_type ?? '';
}

/** Every event type and both kinds of dead letter; resolves with the terminal types seen. */
export async function everyKindOfRecord(pipeline: ServicePipeline): Promise<string[]> {
  const ends: string[] = [];
  const signed = uniqueId('signed');
  const contract = { subject: signed, signatories: [initiator(AUDITED), person(1)] };
  const documents = [await fileDocument('Agreement')];
  ends.push(
    await run(pipeline, 'create-contract', {
      ...meta(signed),
      payload: { contract, documents, initiate: {} },
    }),
    await run(pipeline, 'approve', { ...meta(signed), payload: { pass: true, comment: 'ok' } }),
    await run(pipeline, 'remind', { ...meta(signed), payload: {} }),
    await run(pipeline, 'add-signatory', { ...meta(signed), payload: { signatory: person(7) } }),
  );
  const draft = uniqueId('draft');
  ends.push(
    await run(pipeline, 'create-contract', {
      ...meta(draft),
      payload: { contract: { subject: draft, signatories: [initiator(), person(1)] }, documents },
    }),
    await run(pipeline, 'add-document', { ...meta(draft), payload: templateDocument() }),
    await run(pipeline, 'initiate', { ...meta(draft), payload: {} }),
    await run(pipeline, 'remind', { ...meta(uniqueId('never')), payload: {} }),
    await run(pipeline, 'create-contract', refusedContract()),
  );
  // Retried until the budget runs out: a draft, since its retry can be reconciled (1112).
  await pipeline.sim.admin.setFaults({
    operations: { createDraft: { errorRate: 1, error: 'code21990001' } },
  });
  const failing = uniqueId('failing');
  ends.push(
    await run(pipeline, 'create-contract', {
      ...meta(failing),
      payload: { contract: { subject: failing, signatories: [initiator(), person(1)] } },
    }),
  );
  await pipeline.sim.admin.setFaults({});
  ends.push(await run(pipeline, 'approve', { ...meta(signed), payload: { pass: 'yes' } }));
  await pipeline.sender.sendRaw(pipeline.topics.commands.remind, null, 'not a command');
  await pipeline.reader.waitUntil(
    (records) => records.some((r) => r.topic === pipeline.topics.events && r.key === null),
    30_000,
    'the rejection of a record without key',
  );
  // A dead letter is read from its own topic, so it may come after the event that was awaited:
  // the refused contract's and the keyless record's.
  await pipeline.reader.waitUntil(
    (records) => records.filter((r) => r.topic === pipeline.topics.deadLetter).length >= 2,
    30_000,
    'the two dead letters',
  );
  return ends;
}
