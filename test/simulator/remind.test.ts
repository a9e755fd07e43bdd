// Section 4.5: reminders go to the signatories whose turn it is, never to the initiator.
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/unique.js';
import { externalCompany, initiator, person, SUBSIDIARY } from './support/contracts.js';
import { draftWithPdf, ok, signingContract } from './support/flows.js';
import { useSimulator } from './support/simulator.js';

describe('remind signatories (/v2/contract/notice)', () => {
  const s = useSimulator();
  const remind = (body: unknown) => s.platform.call('remindSignatories', body);

  it('without signatoryId, every signatory on its turn is reminded and the initiator is not', async () => {
    const contract = await signingContract(s.platform, {
      ordinal: false,
      signatories: [initiator(), externalCompany(), person()],
    });
    const answer = await remind({ contractId: contract.id });
    expect(answer.body).toEqual({ responseCode: '00000000', message: 'SUCCESS' });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    const receivers = record.signatories.filter((x) => !x.initiator).map((x) => x.id);
    expect(record.reminders).toMatchObject([{ signatoryIds: receivers }]);
    expect(record.status).toBe('SIGNING');
  });

  it('with signatoryId, only that signatory is reminded', async () => {
    const contract = await signingContract(s.platform);
    const signatoryId = contract.signatories[1].id;
    await ok(s.platform, 'remindSignatories', { bizId: contract.bizId, signatoryId });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.reminders.map((r) => r.signatoryIds)).toEqual([[signatoryId]]);
  });

  it('the call log names the signatory a reminder names, whether or not it was reminded', async () => {
    const contract = await signingContract(s.platform);
    const signatoryId = contract.signatories[1].id;
    await ok(s.platform, 'remindSignatories', { bizId: contract.bizId, signatoryId });
    await remind({ bizId: contract.bizId, signatoryId: '7' });
    await ok(s.platform, 'remindSignatories', { bizId: contract.bizId });
    const calls = await s.sim.admin.calls({
      operation: 'remindSignatories',
      bizId: contract.bizId,
    });
    expect(calls.map((c) => [c.signatoryId, c.code])).toEqual([
      [signatoryId, '00000000'],
      ['7', '11990005'],
      [undefined, '00000000'],
    ]);
  });

  it('the initiator is never reminded, even when named', async () => {
    const contract = await signingContract(s.platform);
    const answer = await remind({
      contractId: contract.id,
      signatoryId: contract.signatories[0].id,
    });
    expect(answer.body.responseCode).toBe('11990005');
  });

  it('11011101: onlySigning (default true) refuses a contract that is not SIGNING', async () => {
    const { contract } = await draftWithPdf(s.platform);
    expect((await remind({ contractId: contract.id })).body.responseCode).toBe('11011101');
    expect((await remind({ contractId: contract.id, onlySigning: true })).body.responseCode).toBe(
      '11011101',
    );
  });

  it('11011101: onlySigning false still refuses a DRAFT (only FILLING and INVALIDING are added)', async () => {
    const { contract } = await draftWithPdf(s.platform);
    expect((await remind({ contractId: contract.id, onlySigning: false })).body.responseCode).toBe(
      '11011101',
    );
  });

  it('11011101: a COMPLETE contract is not reminded', async () => {
    const contract = await signingContract(s.platform);
    await s.sim.admin.signAll({ contractId: contract.id });
    expect((await remind({ contractId: contract.id })).body.responseCode).toBe('11011101');
  });

  it('11011126: an unknown contract is "not found" for reminders', async () => {
    const answer = await remind({ bizId: uniqueId('none') });
    expect(answer.body).toMatchObject({ responseCode: '11011126', code: 11011126 });
  });

  it('14990002: a subsidiary contract addressed by bizId without its tenantName is refused', async () => {
    const contract = await signingContract(s.platform, {
      tenantName: SUBSIDIARY,
      signatories: [initiator(undefined, SUBSIDIARY), person()],
    });
    expect((await remind({ bizId: contract.bizId })).body.responseCode).toBe('14990002');
    expect(
      (await remind({ bizId: contract.bizId, tenantName: SUBSIDIARY })).body.responseCode,
    ).toBe('00000000');
  });

  it('11990005: an unknown signatoryId or a wrongly typed field is refused', async () => {
    const contract = await signingContract(s.platform);
    expect((await remind({ contractId: contract.id, signatoryId: '7' })).body.responseCode).toBe(
      '11990005',
    );
    expect((await remind({ contractId: contract.id, onlySigning: 'yes' })).body.responseCode).toBe(
      '11990005',
    );
  });
});
