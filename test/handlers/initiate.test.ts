/** initiate against the simulator: with positions, each failure family, and an initiation in doubt. */
import { describe, expect, it } from 'vitest';
import { uniqueId } from '../support/unique.js';
import {
  createContract,
  initiator,
  meta,
  person,
  terminal,
  useBench,
  verdict,
} from './support/bench.js';
import { MemoryLedger } from './support/memory-ledger.js';

const bench = useBench();

describe('initiate', () => {
  it('when a draft is named by bizId with positions, then it is initiated at them', async () => {
    const { bizId, record } = await createContract(bench, { initiate: false });
    const signatoryId = record.signatories[1]?.id;
    const stampers = [{ type: 'PERSONAL', signatoryId, keyword: 'SIGN-HERE' }];
    const event = terminal(await bench.run('initiate', { ...meta(bizId), payload: { stampers } }));
    expect(event).toMatchObject({ type: 'signingbridge.contract.initiated', data: { bizId } });
    const after = await bench.sim.admin.contract({ bizId });
    expect(after.status).toBe('SIGNING');
    expect(after.positions).toEqual([expect.objectContaining({ signatoryId })]);
  });

  it('when the earlier run reached the platform but its end was lost, then 1101 on the retry counts as done', async () => {
    const { bizId, contractId } = await createContract(bench, { initiate: false });
    const ledger = new MemoryLedger();
    const command = { ...meta(bizId), payload: { contractId } };
    terminal(await bench.run('initiate', command, ledger));
    expect(ledger.steps.initiate).toEqual({ state: 'started' });
    const again = terminal(await bench.run('initiate', command, ledger));
    expect(again).toMatchObject({ data: { contractId } });
  });
});

describe('initiate failures', () => {
  it('when the contract is already initiated and nothing was in doubt (1101), then the command fails', async () => {
    const { bizId } = await createContract(bench);
    expect(verdict(await bench.run('initiate', { ...meta(bizId), payload: {} }))).toBe(
      'failed @initiate: 1101',
    );
  });

  it('when a position names a signatory of another contract (11990005), then the request is invalid and fails', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    const stampers = [{ type: 'PERSONAL', signatoryId: '42', page: 1 }];
    expect(verdict(await bench.run('initiate', { ...meta(bizId), payload: { stampers } }))).toBe(
      'failed @initiate: 11990005',
    );
  });

  it('when a position page is beyond the document (1109), then the command fails', async () => {
    const { bizId, record } = await createContract(bench, {
      signatories: [initiator(), person(1)],
      initiate: false,
    });
    const stampers = [{ type: 'PERSONAL', signatoryId: record.signatories[1]?.id, page: 9 }];
    expect(verdict(await bench.run('initiate', { ...meta(bizId), payload: { stampers } }))).toBe(
      'failed @initiate: 1109',
    );
  });

  it('when the contract does not exist yet, then the command waits for it (not-found)', async () => {
    expect(verdict(await bench.run('initiate', { ...meta(uniqueId('later')), payload: {} }))).toBe(
      'retry not-found @initiate: 11101003',
    );
  });

  it('when a gateway answers 503 (the call never reached the platform), then the command waits for the outage to end', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    await bench.sim.admin.setFaults({
      script: [{ operation: 'initiateContract', kind: 'http503', times: 1 }],
    });
    expect(verdict(await bench.run('initiate', { ...meta(bizId), payload: {} }))).toBe(
      'retry outage @initiate: SB_ERR_TRANSPORT_HTTP_STATUS',
    );
  });
});
