/** approve against the simulator: a pass and a refusal, and each failure family. */
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/unique.js';
import {
  APPROVER,
  createContract,
  initiator,
  meta,
  person,
  SEAL,
  terminal,
  useBench,
  verdict,
} from './support/bench.js';

const bench = useBench();

/** The initiator's flow starts with an approval by an employee, then its seal. */
const AUDITED = [
  { type: 'AUDIT', operators: [APPROVER] },
  { type: 'COMPANY', sealId: SEAL },
];

describe('approve', () => {
  it('when the approver passes the contract, then approval.recorded carries the verdict, not the comment', async () => {
    const { bizId, contractId } = await createContract(bench, {
      signatories: [initiator(AUDITED), person(1)],
    });
    const payload = { contractId, pass: true, comment: 'fine by legal' };
    const event = terminal(await bench.run('approve', { ...meta(bizId), payload }));
    expect(event).toMatchObject({
      type: 'signingbridge.approval.recorded',
      data: { contractId, pass: true },
    });
    expect(event.data).not.toHaveProperty('comment');
    const record = await bench.sim.admin.contract({ contractId });
    expect(record.approvals).toMatchObject([{ pass: true, comment: 'fine by legal' }]);
  });

  it('when the approver refuses by bizId, then the contract is rejected', async () => {
    const { bizId } = await createContract(bench, { signatories: [initiator(AUDITED), person(1)] });
    terminal(await bench.run('approve', { ...meta(bizId), payload: { pass: false } }));
    expect((await bench.sim.admin.contract({ bizId })).status).toBe('REJECTED');
  });
});

describe('approve failures', () => {
  it("when it is not the approver's turn (11011107), then the command fails", async () => {
    const { bizId } = await createContract(bench, { signatories: [person(1), initiator(AUDITED)] });
    expect(verdict(await bench.run('approve', { ...meta(bizId), payload: { pass: true } }))).toBe(
      'failed @approve: 11011107',
    );
  });

  it('when tenantName names no signatory of the contract (14990002), then permission fails', async () => {
    const { bizId } = await createContract(bench, { signatories: [initiator(AUDITED), person(1)] });
    const command = { ...meta(bizId, 'Nobody Ltd.'), payload: { pass: true } };
    expect(verdict(await bench.run('approve', command))).toBe('failed @approve: 14990002');
  });

  it('when the contract does not exist yet, then the command waits for it (not-found)', async () => {
    const command = { ...meta(uniqueId('later')), payload: { pass: true } };
    expect(verdict(await bench.run('approve', command))).toBe('retry not-found @approve: 11101003');
  });

  it('when the platform answers its internal error (21990001), then the approval is in doubt and not made again: the command fails "outcome unknown"', async () => {
    const { bizId } = await createContract(bench, { signatories: [initiator(AUDITED), person(1)] });
    await bench.sim.admin.setFaults({
      script: [{ operation: 'approveContract', kind: 'code21990001', times: 1 }],
    });
    expect(verdict(await bench.run('approve', { ...meta(bizId), payload: { pass: true } }))).toBe(
      'failed @approve: SB_ERR_COMMAND_OUTCOME_UNKNOWN',
    );
  });
});
