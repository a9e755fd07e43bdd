/** add-signatory against the simulator: added after initiation, and each failure family. */
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/unique.js';
import { createContract, meta, person, terminal, useBench, verdict } from './support/bench.js';

const bench = useBench();

const newcomer = {
  tenantType: 'PERSONAL',
  tenantName: 'Late Signer',
  receiver: { contact: '13900009999', contactType: 'MOBILE' },
};

describe('add-signatory', () => {
  it('when the category allows sending on, then the signatory is added and signatory.added carries its id and status, not their name or contact', async () => {
    const { bizId, contractId } = await createContract(bench);
    const event = terminal(
      await bench.run('add-signatory', {
        ...meta(bizId),
        payload: { contractId, signatory: newcomer },
      }),
    );
    const record = await bench.sim.admin.contract({ contractId });
    expect(record.signatories).toHaveLength(3);
    expect(event).toMatchObject({
      type: 'signingbridge.signatory.added',
      data: { contractId, signatory: { id: record.signatories[2]?.id, tenantType: 'PERSONAL' } },
    });
    const published = JSON.stringify(event);
    expect(published).not.toContain('Late Signer');
    expect(published).not.toContain(newcomer.receiver.contact);
  });
});

describe('add-signatory failures', () => {
  it('when the category forbids sending on (11011304), then the command fails', async () => {
    const { bizId } = await createContract(bench, {
      category: { id: 'cat-sales' },
      signatories: [person(1)],
    });
    const command = { ...meta(bizId), payload: { signatory: newcomer } };
    expect(verdict(await bench.run('add-signatory', command))).toBe(
      'failed @add-signatory: 11011304',
    );
  });

  it('when the contract is still a draft (11011101), then the command fails', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    const command = { ...meta(bizId), payload: { signatory: newcomer } };
    expect(verdict(await bench.run('add-signatory', command))).toBe(
      'failed @add-signatory: 11011101',
    );
  });

  it('when a position names a document of another contract (11990005), then the request is invalid and fails', async () => {
    const { bizId } = await createContract(bench);
    const stampers = [{ type: 'PERSONAL', documentId: '42', page: 1 }];
    const command = { ...meta(bizId), payload: { signatory: { ...newcomer, stampers } } };
    expect(verdict(await bench.run('add-signatory', command))).toBe(
      'failed @add-signatory: 11990005',
    );
  });

  it('when the contract does not exist yet, then the command waits for it (not-found)', async () => {
    const command = { ...meta(uniqueId('later')), payload: { signatory: newcomer } };
    expect(verdict(await bench.run('add-signatory', command))).toBe(
      'retry not-found @add-signatory: 11101003',
    );
  });

  it('when a gateway answers 503 (the call never reached the platform), then the command waits for the outage to end', async () => {
    const { bizId } = await createContract(bench);
    await bench.sim.admin.setFaults({
      script: [{ operation: 'addSignatory', kind: 'http503', times: 1 }],
    });
    const command = { ...meta(bizId), payload: { signatory: newcomer } };
    expect(verdict(await bench.run('add-signatory', command))).toBe(
      'retry outage @add-signatory: SB_ERR_TRANSPORT_HTTP_STATUS',
    );
  });
});
