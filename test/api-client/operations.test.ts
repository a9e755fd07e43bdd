/**
 * The seven operations of the client against the simulator over real HTTP: what succeeds
 * changes the simulator's state as the spec says, what is refused comes back as the platform's
 * code in a PlatformRejected that names the operation and the contract.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SigningClient } from '../../src/api-client/index.js';
import { PlatformRejected } from '../../src/errors.js';
import type { OperationRequest } from '../../src/schemas/platform/operations.js';
import type { Signatory } from '../../src/schemas/platform/resources.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { pdf } from '../support/pdf.js';
import {
  APPROVER,
  clientFor,
  draftWithDocument,
  FROZEN_SEAL,
  initiator,
  person,
  rejection,
  signingContract,
} from './helpers.js';

let sim: RunningSimulator;
let client: SigningClient;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  client = clientFor(sim);
});
afterAll(async () => {
  await client.close();
  await sim.stop();
});
beforeEach(() => sim.admin.reset());

/** The platform code of a rejection, after checking it carries the call's context. */
async function refusedWith(promise: Promise<unknown>, operation: string): Promise<string> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(PlatformRejected);
  const { details } = error as PlatformRejected;
  expect(details.operation).toBe(operation);
  return details.platformCode;
}

describe('createDraft', () => {
  it('when a draft is created, then the simulator holds it in DRAFT with the returned ids', async () => {
    const draft = await client.createDraft({
      bizId: 'd-1',
      subject: 'Lease',
      signatories: [initiator(), person(1)],
    });
    expect(draft).toMatchObject({ bizId: 'd-1', status: 'DRAFT', id: expect.any(String) });
    const stored = await sim.admin.contract({ bizId: 'd-1' });
    expect(stored.id).toBe(draft.id);
    expect(stored.signatories.map((s) => s.id)).toEqual(draft.signatories?.map((s) => s.id));
  });

  const company = (actions: Signatory['actions']): Signatory => ({
    tenantType: 'COMPANY',
    tenantName: 'Acme Ltd',
    actions,
  });
  const CASES: Array<[string, string, object]> = [
    ['no signatory', '1113', { signatories: [] }],
    ['a signatory twice', '1102', { signatories: [person(1), person(1)] }],
    ['a company without a flow', '1103', { signatories: [company([])] }],
    ['an AUDIT node without operators', '1105', { signatories: [company([{ type: 'AUDIT' }])] }],
    [
      'an OPERATOR node without handler',
      '1111',
      { signatories: [company([{ type: 'OPERATOR' }])] },
    ],
    [
      'a seal that does not exist',
      '1201',
      { signatories: [initiator([{ type: 'COMPANY', sealId: '9999' }])] },
    ],
    [
      'a frozen seal',
      '1203',
      { signatories: [initiator([{ type: 'COMPANY', sealId: FROZEN_SEAL }])] },
    ],
    [
      'signatories unlike the category preset',
      '1301',
      { category: { id: 'cat-sales' }, signatories: [company([{ type: 'COMPANY' }])] },
    ],
    [
      'a misconfigured category',
      '1302',
      { category: { id: 'cat-broken' }, signatories: [person(1)] },
    ],
    ['send true without a document', '1401', { send: true, signatories: [initiator(), person(1)] }],
  ];
  it.each(CASES)(
    'when the draft has %s, then the platform refuses it with %s',
    async (_, code, fields) => {
      const request = { bizId: `bad-${code}`, subject: 'x', ...fields };
      expect(await refusedWith(client.createDraft(request), 'createDraft')).toBe(code);
    },
  );

  it('when a bizId is used twice, then 1112 comes back with that bizId', async () => {
    await client.createDraft({ bizId: 'dup', subject: 'x', signatories: [person(1)] });
    const error = await rejection(
      client.createDraft({ bizId: 'dup', subject: 'x', signatories: [person(1)] }),
    );
    expect((error as PlatformRejected).details).toMatchObject({
      platformCode: '1112',
      rawCode: '00001112',
      bizId: 'dup',
      family: 'business',
      httpStatus: 200,
    });
  });
});

describe('addDocumentByFile', () => {
  it('when a PDF buffer is added, then the draft has a document with its pages', async () => {
    const draft = await client.createDraft({
      bizId: 'f-1',
      subject: 'x',
      signatories: [person(1)],
    });
    const { documentId } = await client.addDocumentByFile({
      bizId: 'f-1',
      title: 'Two pages',
      file: await pdf(['one', 'two']),
      fileSuffix: 'pdf',
    });
    const stored = await sim.admin.contract({ contractId: draft.id ?? '' });
    expect(stored.documents).toEqual([
      expect.objectContaining({ id: documentId, title: 'Two pages', pageCount: 2 }),
    ]);
  });

  it('when a file path is given, then its suffix comes from the extension', async () => {
    await client.createDraft({ bizId: 'f-2', subject: 'x', signatories: [person(1)] });
    const path = join(tmpdir(), `upload-${process.pid}.pdf`);
    await writeFile(path, await pdf(['from disk']));
    await expect(
      client.addDocumentByFile({ bizId: 'f-2', title: 'Disk', file: { path } }),
    ).resolves.toEqual({ documentId: expect.any(String) });
  });

  it('when a Readable is given, then it is uploaded whole', async () => {
    await client.createDraft({ bizId: 'f-3', subject: 'x', signatories: [person(1)] });
    const bytes = await pdf(['streamed']);
    const file = Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]);
    await client.addDocumentByFile({ bizId: 'f-3', title: 'Stream', file, fileSuffix: 'pdf' });
    expect((await sim.admin.contract({ bizId: 'f-3' })).documents).toHaveLength(1);
  });

  it('when the file is not what its suffix says, then 1403 comes back', async () => {
    await client.createDraft({ bizId: 'f-4', subject: 'x', signatories: [person(1)] });
    const upload = client.addDocumentByFile({
      bizId: 'f-4',
      title: 'Broken',
      file: Buffer.from('not a pdf'),
      fileSuffix: 'pdf',
    });
    expect(await refusedWith(upload, 'addDocumentByFile')).toBe('1403');
  });

  it('when the contract is no longer a draft, then 1101 comes back', async () => {
    const { contractId } = await signingContract(client, 'f-5');
    const upload = client.addDocumentByFile({
      contractId,
      title: 'Late',
      file: await pdf(['late']),
      fileSuffix: 'pdf',
    });
    expect(await refusedWith(upload, 'addDocumentByFile')).toBe('1101');
  });
});

describe('addDocumentByTemplate', () => {
  it('when a template is added, then the draft has its document', async () => {
    await client.createDraft({ bizId: 't-1', subject: 'x', signatories: [person(1)] });
    const { documentId } = await client.addDocumentByTemplate({
      bizId: 't-1',
      title: 'NDA',
      templateId: 'tpl-nda',
    });
    expect((await sim.admin.contract({ bizId: 't-1' })).documents.map((d) => d.id)).toEqual([
      documentId,
    ]);
  });

  it('when the contract does not exist, then the platform refuses it', async () => {
    const add = client.addDocumentByTemplate({
      bizId: 'nobody',
      title: 'NDA',
      templateId: 'tpl-nda',
    });
    expect(await refusedWith(add, 'addDocumentByTemplate')).toBe('11101003');
  });
});

describe('initiateContract', () => {
  it('when positions are found by keyword, then the contract is SIGNING', async () => {
    const { draft, documentId, contractId } = await draftWithDocument(client, 'i-1');
    const [company, individual] = draft.signatories ?? [];
    await client.initiateContract({
      contractId,
      stampers: [
        { type: 'COMPANY', actionId: company?.actions?.[0]?.id, documentId, keyword: 'SEAL-HERE' },
        { type: 'PERSONAL', signatoryId: individual?.id, documentId, keyword: 'SIGN-HERE' },
      ],
    });
    const stored = await sim.admin.contract({ contractId });
    expect(stored.status).toBe('SIGNING');
    expect(stored.positions).toHaveLength(2);
  });

  it('when a keyword is not in the document, then 1108 comes back and it stays a draft', async () => {
    const { draft, contractId } = await draftWithDocument(client, 'i-2');
    const signatoryId = draft.signatories?.[1]?.id;
    const send = client.initiateContract({
      contractId,
      stampers: [{ type: 'PERSONAL', signatoryId, keyword: 'NOWHERE' }],
    });
    expect(await refusedWith(send, 'initiateContract')).toBe('1108');
    expect((await sim.admin.contract({ contractId })).status).toBe('DRAFT');
  });

  it('when a page is beyond the document, then 1109 comes back', async () => {
    const { draft, documentId, contractId } = await draftWithDocument(client, 'i-3');
    const signatoryId = draft.signatories?.[1]?.id;
    const send = client.initiateContract({
      contractId,
      stampers: [{ type: 'PERSONAL', signatoryId, documentId, page: 5 }],
    });
    expect(await refusedWith(send, 'initiateContract')).toBe('1109');
  });

  it('when the seal was frozen since the draft, then 1203 comes back', async () => {
    const { contractId } = await draftWithDocument(client, 'i-4');
    await sim.admin.setSealStatus('2001', 'FROZEN');
    expect(await refusedWith(client.initiateContract({ contractId }), 'initiateContract')).toBe(
      '1203',
    );
  });

  it('when it is initiated twice, then the second answer is 1101', async () => {
    const { contractId } = await signingContract(client, 'i-5');
    const error = await rejection(client.initiateContract({ contractId }));
    expect((error as PlatformRejected).details).toMatchObject({ platformCode: '1101', contractId });
  });
});

describe('approveContract', () => {
  const withApproval = () => [
    initiator([
      { type: 'AUDIT', operators: [APPROVER] },
      { type: 'COMPANY', sealId: '2001' },
    ]),
    person(1),
  ];

  it('when the approver passes, then the approval is recorded and signing goes on', async () => {
    const { contractId } = await signingContract(client, 'a-1', withApproval());
    await client.approveContract({ contractId, pass: true, comment: 'fine' });
    const stored = await sim.admin.contract({ contractId });
    expect(stored.approvals).toEqual([expect.objectContaining({ pass: true, comment: 'fine' })]);
    expect(stored.status).toBe('SIGNING');
  });

  it('when the approver rejects, then the contract is REJECTED', async () => {
    const { contractId } = await signingContract(client, 'a-2', withApproval());
    await client.approveContract({ bizId: 'a-2', pass: false });
    expect((await sim.admin.contract({ contractId })).status).toBe('REJECTED');
  });

  it('when no approval is due, then 11011107 comes back', async () => {
    const { contractId } = await signingContract(client, 'a-3');
    expect(
      await refusedWith(client.approveContract({ contractId, pass: true }), 'approveContract'),
    ).toBe('11011107');
  });

  it('when the contract is a draft, then 11011101 comes back', async () => {
    const { contractId } = await draftWithDocument(client, 'a-4');
    expect(
      await refusedWith(client.approveContract({ contractId, pass: true }), 'approveContract'),
    ).toBe('11011101');
  });

  it('when the contract does not exist, then 11101003 comes back', async () => {
    expect(
      await refusedWith(
        client.approveContract({ contractId: '42', pass: true }),
        'approveContract',
      ),
    ).toBe('11101003');
  });
});

describe('remindSignatories', () => {
  it('when a signing contract is reminded, then the reminder is recorded', async () => {
    const { contractId } = await signingContract(client, 'r-1');
    await client.remindSignatories({ bizId: 'r-1' });
    expect((await sim.admin.contract({ contractId })).reminders).toHaveLength(1);
  });

  it('when the contract is unknown, then 11011126 comes back', async () => {
    expect(
      await refusedWith(client.remindSignatories({ bizId: 'ghost' }), 'remindSignatories'),
    ).toBe('11011126');
  });

  it('when the contract is a draft and onlySigning holds, then 11011101 comes back', async () => {
    await draftWithDocument(client, 'r-2');
    expect(await refusedWith(client.remindSignatories({ bizId: 'r-2' }), 'remindSignatories')).toBe(
      '11011101',
    );
  });

  it('when the owner named is not ours, then 14990002 comes back', async () => {
    await signingContract(client, 'r-3');
    const remind = client.remindSignatories({ bizId: 'r-3', tenantName: 'Someone Else Ltd' });
    expect(await refusedWith(remind, 'remindSignatories')).toBe('14990002');
  });
});

describe('addSignatory', () => {
  it('when a person is added to a signing contract, then the platform returns the new signatory', async () => {
    const { contractId, documentId } = await signingContract(client, 's-1');
    const added = await client.addSignatory({
      contractId,
      signatory: {
        ...person(2),
        stampers: [
          { type: 'PERSONAL', documentId, keyword: 'SIGN-HERE', width: 60, rotationDegrees: 90 },
        ],
      },
    });
    expect(added).toMatchObject({ id: expect.any(String), tenantName: 'Person 2' });
    expect((await sim.admin.contract({ contractId })).signatories.map((s) => s.id)).toContain(
      added.id,
    );
  });

  it('when the category forbids continued sending, then 11011304 comes back', async () => {
    const draft = await client.createDraft({
      bizId: 's-2',
      category: { id: 'cat-sales' },
      signatories: [person(1)],
    });
    await client.addDocumentByFile({
      contractId: draft.id,
      title: 'x',
      file: await pdf(['x']),
      fileSuffix: 'pdf',
    });
    await client.initiateContract({ contractId: draft.id });
    expect(
      await refusedWith(
        client.addSignatory({ bizId: 's-2', signatory: person(2) }),
        'addSignatory',
      ),
    ).toBe('11011304');
  });

  it('when one of our employees is not found, then 11041701 comes back', async () => {
    await signingContract(client, 's-3');
    const signatory: OperationRequest<'addSignatory'>['signatory'] = {
      tenantType: 'COMPANY',
      tenantName: 'Demo Logistics Co., Ltd.',
      receiver: { contact: '13000000000', contactType: 'MOBILE' },
      actions: [{ type: 'COMPANY' }],
    };
    expect(
      await refusedWith(client.addSignatory({ bizId: 's-3', signatory }), 'addSignatory'),
    ).toBe('11041701');
  });
});
