// Section 4.4: initiation, its positions located in the real document, and who may address a contract.
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/unique.js';
import {
  COMPANY,
  draft,
  externalCompany,
  initiator,
  PURCHASE_PARAMS,
  person,
  SUBSIDIARY,
} from './support/contracts.js';
import { draftWithPdf, ok, signingContract } from './support/flows.js';
import { useSimulator } from './support/simulator.js';

describe('initiate contract (/v2/contract/send)', () => {
  const s = useSimulator();
  const send = (body: unknown) => s.platform.call('initiateContract', body);

  it('a DRAFT is initiated: SIGNING, first signatory SIGNING, next WAITING, first action START', async () => {
    const { contract } = await draftWithPdf(s.platform);
    const answer = await send({ contractId: contract.id });
    expect(answer.body).toEqual({ code: 0, message: 'SUCCESS' });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.status).toBe('SIGNING');
    expect(record.signatories.map((x) => x.status)).toEqual(['SIGNING', 'WAITING']);
    expect(record.signatories[0]?.actions[0]?.status).toBe('START');
  });

  it('positions by keyword are located on the pages where the keyword occurs', async () => {
    const pages = ['SEAL-HERE first', 'nothing', 'SEAL-HERE again'];
    const { contract, documentId } = await draftWithPdf(s.platform, pages);
    const actionId = contract.signatories[0].actions[0].id;
    const signatoryId = contract.signatories[1].id;
    await ok(s.platform, 'initiateContract', {
      contractId: contract.id,
      stampers: [
        { type: 'COMPANY', actionId, keyword: 'SEAL-HERE', keywordIndex: 0 },
        { type: 'PERSONAL', signatoryId, keyword: 'SEAL-HERE', keywordIndex: -1, documentId },
        { type: 'TIMESTAMP', page: 2, offsetX: 0.5, offsetY: 0.5 },
      ],
    });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.positions.map((p) => p.pages)).toEqual([[1, 3], [3], [2]]);
  });

  it('1108: a position whose keyword is not in the document is refused', async () => {
    const { contract, documentId } = await draftWithPdf(s.platform, ['only text']);
    const actionId = contract.signatories[0].actions[0].id;
    const answer = await send({
      contractId: contract.id,
      stampers: [{ type: 'COMPANY', actionId, documentId, keyword: 'MISSING' }],
    });
    expect(answer.body).toMatchObject({ code: 1108, responseCode: '00001108' });
    expect((await s.sim.admin.contract({ contractId: contract.id })).status).toBe('DRAFT');
  });

  it('1108: a keyword occurrence beyond the last one is refused', async () => {
    const { contract } = await draftWithPdf(s.platform, ['MARK', 'MARK']);
    const actionId = contract.signatories[0].actions[0].id;
    const answer = await send({
      contractId: contract.id,
      stampers: [{ type: 'COMPANY', actionId, keyword: 'MARK', keywordIndex: 3 }],
    });
    expect(answer.body.code).toBe(1108);
  });

  it('1109: a position page beyond the page count is refused', async () => {
    const { contract, documentId } = await draftWithPdf(s.platform, ['one', 'two']);
    const signatoryId = contract.signatories[1].id;
    const answer = await send({
      contractId: contract.id,
      stampers: [{ type: 'PERSONAL', signatoryId, documentId, page: 3 }],
    });
    expect(answer.body.code).toBe(1109);
  });

  it('1101: only a DRAFT is initiated', async () => {
    const contract = await signingContract(s.platform);
    expect((await send({ contractId: contract.id })).body.code).toBe(1101);
  });

  it('1401: initiation without a document is refused', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    expect((await send({ bizId: contract.bizId })).body.code).toBe(1401);
  });

  it('1203: a seal frozen after the draft was created is refused at initiation', async () => {
    const { contract } = await draftWithPdf(s.platform);
    await s.sim.admin.setSealStatus('2001', 'FROZEN');
    try {
      expect((await send({ contractId: contract.id })).body.code).toBe(1203);
    } finally {
      await s.sim.admin.setSealStatus('2001', 'NORMAL');
    }
  });

  it('category: required initiator template parameters are checked at initiation', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    await ok(s.platform, 'addDocumentByTemplate', {
      contractId: contract.id,
      title: 'Purchase',
      templateId: 'tpl-purchase',
      templateParams: [{ name: 'buyer', value: COMPANY }],
    });
    const answer = await send({ contractId: contract.id });
    expect(answer.body.code).toBe(11990005);
    expect(answer.body.message).toContain('"amount"');
  });

  it('category: parameters owned by a signatory need not be filled before initiation', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    await ok(s.platform, 'addDocumentByTemplate', {
      contractId: contract.id,
      title: 'Purchase',
      templateId: 'tpl-purchase',
      templateParams: PURCHASE_PARAMS,
    });
    expect((await send({ contractId: contract.id })).body.code).toBe(0);
  });

  it('11990005: a position naming an action that is not in the contract is refused', async () => {
    const { contract } = await draftWithPdf(s.platform);
    const answer = await send({
      contractId: contract.id,
      stampers: [{ type: 'COMPANY', actionId: '42', page: 1 }],
    });
    expect(answer.body.code).toBe(11990005);
  });

  it('11990005: a position that breaks the Stamper schema (COMPANY without actionId) is refused', async () => {
    const { contract } = await draftWithPdf(s.platform);
    const answer = await send({
      contractId: contract.id,
      stampers: [{ type: 'COMPANY', page: 1 }],
    });
    expect(answer.body.code).toBe(11990005);
    expect(answer.body.message).toContain('actionId');
  });

  it('11101003: an unknown contract is refused with both code fields (envelope A has no code of its own)', async () => {
    const answer = await send({ contractId: '1234567890123456789' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ code: 11101003, responseCode: '11101003' });
    expect((await send({ bizId: uniqueId('unknown') })).body.code).toBe(11101003);
  });

  it('14990002: a subsidiary contract addressed by bizId without its tenantName is refused', async () => {
    const body = draft({
      tenantName: SUBSIDIARY,
      signatories: [initiator(undefined, SUBSIDIARY), person()],
    });
    const contract = await ok(s.platform, 'createDraft', body);
    expect((await send({ bizId: contract.bizId })).body.code).toBe(14990002);
    expect((await send({ bizId: contract.bizId, tenantName: COMPANY })).body.code).toBe(14990002);
    // By its tenantName, or by contractId (which needs none), it is found.
    expect((await send({ bizId: contract.bizId, tenantName: SUBSIDIARY })).body.code).toBe(1401);
    expect((await send({ contractId: contract.id })).body.code).toBe(1401);
  });

  it("14990002: a tenantName that is not one of the caller's companies is refused", async () => {
    const { contract } = await draftWithPdf(s.platform);
    const answer = await send({ contractId: contract.id, tenantName: 'Foreign Corp.' });
    expect(answer.body.code).toBe(14990002);
  });

  it('ordinal false: every signatory signs at once', async () => {
    const { contract } = await draftWithPdf(s.platform, undefined, {
      ordinal: false,
      signatories: [initiator(), externalCompany(), person()],
    });
    await ok(s.platform, 'initiateContract', { contractId: contract.id });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.signatories.map((x) => x.status)).toEqual(['SIGNING', 'SIGNING', 'SIGNING']);
  });
});
