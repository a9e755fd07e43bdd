// Section 4.6: a signatory joins an initiated contract when the category allows continued sending.
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/schemas/platform/operations.js';
import { uniqueId } from '../support/unique.js';
import { EMPLOYEE, initiator, person, SUBSIDIARY } from './support/contracts.js';
import { draftWithPdf, ok, signingContract } from './support/flows.js';
import { useSimulator } from './support/simulator.js';

const LATE_PERSON = {
  tenantType: 'PERSONAL',
  tenantName: 'Late Larry',
  receiver: { contact: '13900000077', contactType: 'MOBILE' },
};

describe('add signatory (/v2/signatory/add)', () => {
  const s = useSimulator();
  const add = (body: unknown) => s.platform.call('addSignatory', body);

  it('a signatory added to a SIGNING contract waits for its turn and is returned with its id', async () => {
    const contract = await signingContract(s.platform);
    const answer = await add({ contractId: contract.id, signatory: LATE_PERSON });
    expect(answer.body.responseCode).toBe('00000000');
    const signatory = OPERATIONS.addSignatory.result.parse(answer.body.result);
    expect(signatory).toMatchObject({ status: 'WAITING', tenantName: 'Late Larry', serialNo: 3 });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.signatories.map((x) => x.status)).toEqual(['SIGNING', 'WAITING', 'WAITING']);
  });

  it('a signatory added to a COMPLETE contract makes it SIGNING until the newcomer signs', async () => {
    const contract = await signingContract(s.platform);
    expect((await s.sim.admin.signAll({ contractId: contract.id })).status).toBe('COMPLETE');
    const result = await ok(s.platform, 'addSignatory', {
      bizId: contract.bizId,
      signatory: LATE_PERSON,
    });
    expect(result.status).toBe('SIGNING');
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.status).toBe('SIGNING');
    expect((await s.sim.admin.signAll({ contractId: contract.id })).status).toBe('COMPLETE');
  });

  it('a flow with the add-signatory-only PERSONAL node is returned in a shape the shared result schema reads', async () => {
    const contract = await signingContract(s.platform);
    const signatory = {
      tenantType: 'COMPANY',
      tenantName: 'Acme Partners',
      receiver: LATE_PERSON.receiver,
      actions: [{ type: 'PERSONAL' }, { type: 'COMPANY' }],
    };
    const answer = await add({ contractId: contract.id, signatory });
    expect(answer.body.responseCode).toBe('00000000');
    const result = OPERATIONS.addSignatory.result.parse(answer.body.result);
    expect(result.actions?.map((a) => a.type)).toEqual(['PERSONAL', 'COMPANY']);
  });

  it('positions of the new signatory are located in the documents', async () => {
    const { contract, documentId } = await draftWithPdf(s.platform, ['a', 'b', 'LARRY-SIGNS here']);
    await ok(s.platform, 'initiateContract', { contractId: contract.id });
    const stampers = [
      { type: 'PERSONAL', documentId, keyword: 'LARRY-SIGNS', width: 60, rotationDegrees: 90 },
      { type: 'TIMESTAMP', documentId, page: -1 },
    ];
    await ok(s.platform, 'addSignatory', {
      contractId: contract.id,
      signatory: { ...LATE_PERSON, stampers },
    });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.positions.map((p) => p.pages)).toEqual([[3], [3]]);
  });

  it('locateAllStamperKeywords false: one keyword found suffices', async () => {
    const { contract, documentId } = await draftWithPdf(s.platform, ['HERE']);
    await ok(s.platform, 'initiateContract', { contractId: contract.id });
    const stampers = [
      { type: 'PERSONAL', documentId, keyword: 'HERE' },
      { type: 'PERSONAL', documentId, keyword: 'NOT-THERE' },
    ];
    const strict = await add({ contractId: contract.id, signatory: { ...LATE_PERSON, stampers } });
    expect(strict.body.responseCode).toBe('11990005');
    const lenient = await add({
      contractId: contract.id,
      locateAllStamperKeywords: false,
      signatory: { ...LATE_PERSON, stampers },
    });
    expect(lenient.body.responseCode).toBe('00000000');
  });

  it('11011304: a category that does not allow continued sending refuses a new signatory', async () => {
    const contract = await signingContract(s.platform, {
      category: { id: 'cat-sales' },
      signatories: [initiator(), person()],
    });
    const answer = await add({ contractId: contract.id, signatory: LATE_PERSON });
    expect(answer.body).toMatchObject({ responseCode: '11011304', code: 11011304 });
  });

  it('11011101: a DRAFT contract refuses a new signatory', async () => {
    const { contract } = await draftWithPdf(s.platform);
    expect((await add({ contractId: contract.id, signatory: LATE_PERSON })).body.responseCode).toBe(
      '11011101',
    );
  });

  it('11011101: a REJECTED contract refuses a new signatory', async () => {
    const contract = await signingContract(s.platform);
    await s.sim.admin.reject(contract.id, contract.signatories[0].id);
    expect((await add({ contractId: contract.id, signatory: LATE_PERSON })).body.responseCode).toBe(
      '11011101',
    );
  });

  it('11041701: a receiver of our own company who is not an employee is refused', async () => {
    const contract = await signingContract(s.platform);
    const signatory = {
      tenantType: 'COMPANY',
      tenantName: SUBSIDIARY,
      receiver: { contact: 'nobody@demo-trading.example', contactType: 'EMAIL' },
      actions: [{ type: 'COMPANY', sealId: '2003' }],
    };
    expect((await add({ contractId: contract.id, signatory })).body.responseCode).toBe('11041701');
    const known = { ...signatory, receiver: EMPLOYEE };
    expect((await add({ contractId: contract.id, signatory: known })).body.responseCode).toBe(
      '00000000',
    );
  });

  it('14990002: a subsidiary contract addressed by bizId without its tenantName is refused', async () => {
    const contract = await signingContract(s.platform, {
      tenantName: SUBSIDIARY,
      signatories: [initiator(undefined, SUBSIDIARY), person()],
    });
    expect((await add({ bizId: contract.bizId, signatory: LATE_PERSON })).body.responseCode).toBe(
      '14990002',
    );
  });

  it('11101003: an unknown contract is refused', async () => {
    expect((await add({ bizId: uniqueId('none'), signatory: LATE_PERSON })).body.responseCode).toBe(
      '11101003',
    );
  });

  it('11990005: limits of section 8 are enforced (width 10..120, height 4..48, rotation 0..360, corpSealIds <= 9)', async () => {
    const contract = await signingContract(s.platform);
    const documentId = contract.id; // never reached: the schema refuses first
    const withStamper = (extra: object) => ({
      contractId: contract.id,
      signatory: {
        ...LATE_PERSON,
        stampers: [{ type: 'PERSONAL', documentId, page: 1, ...extra }],
      },
    });
    for (const extra of [
      { width: 9 },
      { width: 121 },
      { height: 3 },
      { height: 49 },
      { rotationDegrees: 361 },
    ]) {
      const answer = await add(withStamper(extra));
      expect(answer.body.responseCode, JSON.stringify(extra)).toBe('11990005');
    }
    const tenSeals = Array.from({ length: 10 }, (_, i) => String(3000 + i));
    const company = {
      tenantType: 'COMPANY',
      tenantName: 'Acme',
      receiver: LATE_PERSON.receiver,
      actions: [{ type: 'COMPANY', corpSealIds: tenSeals }],
    };
    expect((await add({ contractId: contract.id, signatory: company })).body.responseCode).toBe(
      '11990005',
    );
  });

  it('11990005: a signatory without its required receiver is refused', async () => {
    const contract = await signingContract(s.platform);
    const answer = await add({
      contractId: contract.id,
      signatory: { tenantType: 'PERSONAL', tenantName: 'X' },
    });
    expect(answer.body.responseCode).toBe('11990005');
  });

  it('11990005: a company signatory without a signing flow is refused', async () => {
    const contract = await signingContract(s.platform);
    const company = { tenantType: 'COMPANY', tenantName: 'Acme', receiver: LATE_PERSON.receiver };
    const answer = await add({ contractId: contract.id, signatory: company });
    expect(answer.body.responseCode).toBe('11990005');
    expect(answer.body.message).toContain('no signing action');
  });

  it('the message of an answer is at most 200 characters (section 8)', async () => {
    const contract = await signingContract(s.platform);
    const stampers = Array.from({ length: 30 }, () => ({
      type: 'BOGUS',
      documentId: 'x',
      page: 1,
    }));
    const answer = await add({ contractId: contract.id, signatory: { ...LATE_PERSON, stampers } });
    expect(answer.body.responseCode).toBe('11990005');
    expect(answer.body.message.length).toBeLessThanOrEqual(200);
  });
});
