/**
 * Every command type through Kafka: produced on its topic, run against the simulator, its
 * events published keyed by bizId as CloudEvents; and the failure event of each error family.
 */
import { describe, expect, it } from 'vitest';
import { INLINE_FILE_MAX_BYTES } from '../../src/schemas/messages/index.js';
import {
  APPROVER,
  fileDocument,
  initiator,
  meta,
  person,
  SEAL,
  templateDocument,
} from '../handlers/support/fixtures.js';
import { pdfBase64 } from '../support/pdf.js';
import { uniqueId } from '../support/unique.js';
import { useEndToEnd } from './support/e2e.js';

const e2e = useEndToEnd();

const AUDITED = [
  { type: 'AUDIT', operators: [APPROVER] },
  { type: 'COMPANY', sealId: SEAL },
];

/** A contract made through the bridge: one document, initiated unless told otherwise. */
async function contract(options: { signatories?: unknown[]; initiate?: boolean } = {}) {
  const bizId = uniqueId('e2e');
  const commandId = await e2e.send('create-contract', {
    ...meta(bizId),
    payload: {
      contract: { subject: bizId, signatories: options.signatories ?? [initiator(), person(1)] },
      documents: [await fileDocument('Agreement')],
      ...(options.initiate === false ? {} : { initiate: {} }),
    },
  });
  const ended = await e2e.ended(commandId);
  expect(ended.event.type).toBe('signingbridge.contract.created');
  return { bizId, record: await e2e.sim.admin.contract({ bizId }) };
}

describe('each command type, end to end', () => {
  it('when create-contract runs, then draft.created, document.added per document and contract.created are published, keyed by bizId', async () => {
    const bizId = uniqueId('saga');
    const stampers = [
      { type: 'PERSONAL', signatoryIndex: 1, documentIndex: 0, keyword: 'SIGN-HERE' },
    ];
    const commandId = await e2e.send('create-contract', {
      ...meta(bizId),
      payload: {
        contract: { subject: bizId, signatories: [initiator(), person(1)] },
        documents: [await fileDocument('Agreement'), templateDocument('NDA')],
        initiate: { stampers },
      },
    });
    const ended = await e2e.ended(commandId);
    const events = e2e.eventsOf(commandId);
    expect(events.map((e) => [e.event.type, e.event.id])).toEqual([
      ['signingbridge.draft.created', `${bizId}/${commandId}/draft`],
      ['signingbridge.document.added', `${bizId}/${commandId}/document:0`],
      ['signingbridge.document.added', `${bizId}/${commandId}/document:1`],
      // The ending names the command record it ended.
      ['signingbridge.contract.created', `${bizId}/${commandId}/created@${recordOf(ended)}`],
    ]);
    expect(events.every((e) => e.key === bizId && e.event.subject === bizId)).toBe(true);
    const record = await e2e.sim.admin.contract({ bizId });
    expect(ended.data).toMatchObject({
      contractId: record.id,
      documentIds: record.documents.map((d) => d.id),
      initiated: true,
      reconciled: false,
    });
    expect(record.status).toBe('SIGNING');
  });

  it('when add-document runs, then document.added ends it', async () => {
    const { bizId, record } = await contract({ initiate: false });
    const commandId = await e2e.send('add-document', {
      ...meta(bizId),
      payload: templateDocument(),
    });
    const ended = await e2e.ended(commandId);
    expect(ended.event.type).toBe('signingbridge.document.added');
    expect(ended.data).toMatchObject({ contractId: record.id, title: 'NDA' });
  });

  it('when a document arrives inline near the size limit, far more than one fetch takes per partition, then it is still consumed and added', async () => {
    const { bizId } = await contract({ initiate: false });
    // Random bytes do not compress: the PDF is as large as its attachment.
    const base64 = await pdfBase64([''], { attachmentBytes: INLINE_FILE_MAX_BYTES - 32 * 1024 });
    const commandId = await e2e.send('add-document', {
      ...meta(bizId),
      payload: { source: 'file', title: 'Large', fileSuffix: 'pdf', file: { base64 } },
    });
    const ended = await e2e.ended(commandId);
    expect(ended.event.type).toBe('signingbridge.document.added');
    expect((await e2e.sim.admin.contract({ bizId })).documents).toHaveLength(2);
  });

  it('when initiate runs, then contract.initiated ends it', async () => {
    const { bizId } = await contract({ initiate: false });
    const ended = await e2e.ended(await e2e.send('initiate', { ...meta(bizId), payload: {} }));
    expect(ended.event.type).toBe('signingbridge.contract.initiated');
    expect((await e2e.sim.admin.contract({ bizId })).status).toBe('SIGNING');
  });

  it('when approve runs, then approval.recorded ends it', async () => {
    const { bizId } = await contract({ signatories: [initiator(AUDITED), person(1)] });
    const payload = { pass: true, comment: 'ok' };
    const ended = await e2e.ended(await e2e.send('approve', { ...meta(bizId), payload }));
    expect(ended.event.type).toBe('signingbridge.approval.recorded');
    expect(ended.data).toMatchObject({ pass: true });
  });

  it('when remind runs, then reminder.sent ends it', async () => {
    const { bizId } = await contract();
    const ended = await e2e.ended(await e2e.send('remind', { ...meta(bizId), payload: {} }));
    expect(ended.event.type).toBe('signingbridge.reminder.sent');
    expect((await e2e.sim.admin.contract({ bizId })).reminders).toHaveLength(1);
  });

  it('when add-signatory runs, then signatory.added ends it with the new signatory, without their name', async () => {
    const { bizId } = await contract();
    const signatory = { ...person(7), tenantName: 'Late Signer' };
    const ended = await e2e.ended(
      await e2e.send('add-signatory', { ...meta(bizId), payload: { signatory } }),
    );
    expect(ended.event.type).toBe('signingbridge.signatory.added');
    expect(ended.data).toMatchObject({
      signatory: { tenantType: 'PERSONAL', id: expect.any(String) },
    });
    expect(JSON.stringify(ended.data)).not.toContain('Late Signer');
  });
});

describe('the failure event of each error family', () => {
  it('when the platform refuses for a business reason, then command.failed carries its code', async () => {
    const { bizId } = await contract();
    const ended = await e2e.ended(
      await e2e.send('add-document', { ...meta(bizId), payload: templateDocument() }),
    );
    expect(ended.event.type).toBe('signingbridge.command.failed');
    expect(ended.data).toMatchObject({
      step: 'add-document',
      error: { platformCode: '1101', platformName: 'INVALID CONTRACT STATUS', retryable: false },
    });
  });

  it('when the platform calls the request invalid, then command.failed carries 11990005', async () => {
    const { bizId } = await contract();
    const payload = { signatoryId: '42' };
    const ended = await e2e.ended(await e2e.send('remind', { ...meta(bizId), payload }));
    expect(ended.event.type).toBe('signingbridge.command.failed');
    expect(ended.data).toMatchObject({ error: { platformCode: '11990005' } });
  });

  it('when the caller may not act on the contract, then command.failed carries 14990002', async () => {
    const { bizId } = await contract({ signatories: [initiator(AUDITED), person(1)] });
    const command = { ...meta(bizId, 'Nobody Ltd.'), payload: { pass: true } };
    const ended = await e2e.ended(await e2e.send('approve', command));
    expect(ended.data).toMatchObject({ error: { platformCode: '14990002' } });
  });

  it('when a file URL is on no allowed host, then command.failed says the file was refused', async () => {
    const { bizId } = await contract({ initiate: false });
    const payload = {
      source: 'file',
      title: 'Far',
      fileSuffix: 'pdf',
      file: { url: 'https://files.example.com/a.pdf' },
    };
    const ended = await e2e.ended(await e2e.send('add-document', { ...meta(bizId), payload }));
    expect(ended.event.type).toBe('signingbridge.command.failed');
    expect(ended.data).toMatchObject({ error: { code: 'SB_ERR_FILE_REJECTED', retryable: false } });
  });

  it('when the contract never appears, then command.precondition-timed-out ends the command', async () => {
    const command = { ...meta(uniqueId('never')), payload: {} };
    const ended = await e2e.ended(await e2e.send('remind', command));
    expect(ended.event.type).toBe('signingbridge.command.precondition-timed-out');
    expect(ended.data).toMatchObject({ step: 'remind', error: { platformCode: '11011126' } });
  });

  it('when the platform keeps failing transiently where a retry can be reconciled, then command.gave-up ends the command, not final', async () => {
    const { bizId } = await contract({ initiate: false });
    await e2e.sim.admin.setFaults({
      operations: { initiateContract: { errorRate: 1, error: 'code21990001' } },
    });
    const ended = await e2e.ended(await e2e.send('initiate', { ...meta(bizId), payload: {} }));
    expect(ended.event.type).toBe('signingbridge.command.gave-up');
    expect(ended.data).toMatchObject({
      step: 'initiate',
      final: false,
      error: { platformCode: '21990001', retryable: true },
    });
  });

  it('when the platform answers its internal error to a reminder, then it is not sent again: command.failed says the outcome is unknown, not final', async () => {
    const { bizId } = await contract();
    const reminders = async () =>
      (await e2e.sim.admin.calls({ operation: 'remindSignatories' })).length;
    const before = await reminders();
    await e2e.sim.admin.setFaults({
      script: [{ operation: 'remindSignatories', kind: 'code21990001', times: 1 }],
    });
    const ended = await e2e.ended(await e2e.send('remind', { ...meta(bizId), payload: {} }));
    expect(ended.event.type).toBe('signingbridge.command.failed');
    expect(ended.data).toMatchObject({
      step: 'remind',
      final: false,
      error: { code: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN', retryable: false },
    });
    // The simulator logs no bizId for a call its fault answered: count them all.
    expect(await reminders()).toBe(before + 1);
  });

  it('when a command breaks its schema, then command.rejected ends it', async () => {
    const bizId = uniqueId('broken');
    const commandId = await e2e.sendUnchecked('approve', {
      ...meta(bizId),
      payload: { pass: 'yes' },
    });
    const ended = await e2e.ended(commandId);
    expect(ended.event.type).toBe('signingbridge.command.rejected');
    expect(ended.data).toMatchObject({
      commandType: 'approve',
      error: { code: 'SB_ERR_COMMAND_INVALID' },
    });
  });
});

/** `<topic>/<partition>/<offset>` of the command record an ending names. */
function recordOf(ended: { data: Record<string, unknown> }): string {
  const { topic, partition, offset } = ended.data.source as Record<string, unknown>;
  return `${topic}/${partition}/${offset}`;
}
