// Section 4.4a: employee approval on the signatory's AUDIT node, in turn.
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/unique.js';
import {
  APPROVER,
  draft,
  initiator,
  NORMAL_SEAL,
  person,
  SUBSIDIARY,
} from './support/contracts.js';
import { draftWithPdf, ok, signingContract } from './support/flows.js';
import { useSimulator } from './support/simulator.js';

const AUDITED = [
  { type: 'AUDIT', operators: [APPROVER] },
  { type: 'COMPANY', sealId: NORMAL_SEAL },
];

describe('employee approval (/v2/contract/employeeaudit)', () => {
  const s = useSimulator();
  const audit = (body: unknown) => s.platform.call('approveContract', body);

  it('a passed approval is recorded with its comment and the flow moves on to the seal', async () => {
    const contract = await signingContract(s.platform, {
      signatories: [initiator(AUDITED), person()],
    });
    const answer = await audit({ contractId: contract.id, pass: true, comment: 'fine by legal' });
    expect(answer.body).toEqual({ responseCode: '00000000', message: 'SUCCESS' });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.approvals).toMatchObject([
      { pass: true, comment: 'fine by legal', signatoryId: record.signatories[0]?.id },
    ]);
    expect(record.signatories[0]?.actions.map((a) => a.status)).toEqual(['FINISH', 'START']);
    expect(record.signatories[0]?.actions[0]?.complateTime).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/,
    );
  });

  it('a refused approval rejects the contract', async () => {
    const contract = await signingContract(s.platform, {
      signatories: [initiator(AUDITED), person()],
    });
    await ok(s.platform, 'approveContract', {
      bizId: contract.bizId,
      pass: false,
      comment: 'price too high',
    });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.status).toBe('REJECTED');
    expect(record.signatories[0]?.status).toBe('REJECTED');
    expect(record.signatories[0]?.actions.map((a) => a.status)).toEqual(['STOP', 'INIT']);
  });

  it("11011107: an approval before it is the approver's turn is refused", async () => {
    const contract = await signingContract(s.platform, {
      signatories: [person(), initiator(AUDITED)],
    });
    const answer = await audit({ contractId: contract.id, pass: true });
    expect(answer.body).toMatchObject({ responseCode: '11011107', code: 11011107 });
  });

  it('11011107: an approval when the current node is not an AUDIT node is refused', async () => {
    const contract = await signingContract(s.platform);
    expect((await audit({ contractId: contract.id, pass: true })).body.responseCode).toBe(
      '11011107',
    );
  });

  it('11011101: an approval on a contract that is not SIGNING is refused', async () => {
    const { contract } = await draftWithPdf(s.platform, undefined, {
      signatories: [initiator(AUDITED), person()],
    });
    expect((await audit({ contractId: contract.id, pass: true })).body.responseCode).toBe(
      '11011101',
    );
  });

  it('11101003: an approval on an unknown contract is refused', async () => {
    expect((await audit({ bizId: uniqueId('none'), pass: true })).body.responseCode).toBe(
      '11101003',
    );
  });

  it('14990002: an approver for a company that is not a signatory, or not ours, is refused', async () => {
    const contract = await signingContract(s.platform, {
      signatories: [initiator(AUDITED), person()],
    });
    expect(
      (await audit({ contractId: contract.id, tenantName: SUBSIDIARY, pass: true })).body
        .responseCode,
    ).toBe('14990002');
    expect(
      (await audit({ contractId: contract.id, tenantName: 'Foreign Corp.', pass: true })).body
        .responseCode,
    ).toBe('14990002');
  });

  it('a subsidiary approves as itself when it is the signatory', async () => {
    const flow = [
      { type: 'AUDIT', operators: [APPROVER] },
      { type: 'COMPANY', sealId: '2003' },
    ];
    const contract = await signingContract(s.platform, {
      tenantName: SUBSIDIARY,
      signatories: [initiator(flow, SUBSIDIARY), person()],
    });
    const answer = await audit({ bizId: contract.bizId, tenantName: SUBSIDIARY, pass: true });
    expect(answer.body.responseCode).toBe('00000000');
  });

  it('11990005: an approval without pass is refused', async () => {
    const contract = await signingContract(s.platform, {
      signatories: [initiator(AUDITED), person()],
    });
    const answer = await audit({ contractId: contract.id });
    expect(answer.body).toMatchObject({ responseCode: '11990005' });
    expect(answer.body.message).toContain('pass');
  });

  it('11990005: neither contractId nor bizId is refused', async () => {
    expect((await audit({ pass: true })).body.responseCode).toBe('11990005');
    expect((await s.platform.call('approveContract', draft())).body.responseCode).toBe('11990005');
  });
});
