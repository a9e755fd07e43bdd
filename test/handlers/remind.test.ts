/** remind against the simulator: all signatories or one, and each failure family. */
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/unique.js';
import { createContract, meta, terminal, useBench, verdict } from './support/bench.js';

const bench = useBench();

describe('remind', () => {
  it('when a signing contract is named, then its signatories are reminded and reminder.sent says so', async () => {
    const { bizId } = await createContract(bench);
    const event = terminal(await bench.run('remind', { ...meta(bizId), payload: {} }));
    expect(event).toMatchObject({
      type: 'signingbridge.reminder.sent',
      data: { bizId, onlySigning: true },
    });
    expect((await bench.sim.admin.contract({ bizId })).reminders).toHaveLength(1);
  });

  it('when one signatory is named, then only it is reminded', async () => {
    const { bizId, contractId, record } = await createContract(bench);
    const signatoryId = record.signatories[1]?.id;
    const event = terminal(
      await bench.run('remind', { ...meta(bizId), payload: { contractId, signatoryId } }),
    );
    expect(event.data).toMatchObject({ contractId, signatoryId });
  });
});

describe('remind failures', () => {
  it('when the contract is a draft and only signing contracts are reminded (11011101), then the command fails', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    expect(verdict(await bench.run('remind', { ...meta(bizId), payload: {} }))).toBe(
      'failed @remind: 11011101',
    );
  });

  it('when the signatory is not in the contract (11990005), then the request is invalid and fails', async () => {
    const { bizId } = await createContract(bench);
    const payload = { signatoryId: '42' };
    expect(verdict(await bench.run('remind', { ...meta(bizId), payload }))).toBe(
      'failed @remind: 11990005',
    );
  });

  it('when the contract does not exist yet, then the command waits for it (not-found)', async () => {
    expect(verdict(await bench.run('remind', { ...meta(uniqueId('later')), payload: {} }))).toBe(
      'retry not-found @remind: 11011126',
    );
  });

  it('when the connection is reset after the request was sent, then the reminder is in doubt and not sent again', async () => {
    const { bizId } = await createContract(bench);
    await bench.sim.admin.setFaults({
      script: [{ operation: 'remindSignatories', kind: 'reset', times: 1 }],
    });
    expect(verdict(await bench.run('remind', { ...meta(bizId), payload: {} }))).toBe(
      'failed @remind: SB_ERR_COMMAND_OUTCOME_UNKNOWN',
    );
  });
});
