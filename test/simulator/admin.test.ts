// The simulator-only admin API, through the AdminClient, and the fault injector wired into it.
import { describe, expect, it } from 'vitest';
import { AdminRequestFailed } from '../../src/simulator/index.js';
import { uniqueId } from '../support/unique.js';
import { APPROVER, draft, initiator, NORMAL_SEAL, person } from './support/contracts.js';
import { ok, signingContract } from './support/flows.js';
import { useSimulator } from './support/simulator.js';

describe('admin API', () => {
  const s = useSimulator();

  it('reads the full state by contractId and by bizId', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    const byId = await s.sim.admin.contract({ contractId: contract.id });
    const byBizId = await s.sim.admin.contract({ bizId: contract.bizId });
    expect(byBizId).toEqual(byId);
    expect(byId).toMatchObject({
      id: contract.id,
      status: 'DRAFT',
      reminders: [],
      approvals: [],
      positions: [],
    });
  });

  it('answers 404 for an unknown contract, as an AdminRequestFailed', async () => {
    const failure = await s.sim.admin.contract({ bizId: 'nope' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AdminRequestFailed);
    expect((failure as AdminRequestFailed).details.httpStatus).toBe(404);
  });

  it('approves as an employee, in turn only (409 otherwise)', async () => {
    const flow = [
      { type: 'AUDIT', operators: [APPROVER] },
      { type: 'COMPANY', sealId: NORMAL_SEAL },
    ];
    const contract = await signingContract(s.platform, {
      signatories: [initiator(flow), person()],
    });
    const [own, bob] = contract.signatories.map((x: { id: string }) => x.id);
    await expect(s.sim.admin.approve(contract.id, bob, { pass: true })).rejects.toThrow(/turn/);
    const record = await s.sim.admin.approve(contract.id, own, { pass: true, comment: 'ok' });
    expect(record.approvals).toMatchObject([{ pass: true, comment: 'ok' }]);
  });

  it('lists the calls received with operation, bizId, contractId, code and time', async () => {
    const body = draft();
    const contract = await ok(s.platform, 'createDraft', body);
    await s.platform.call('createDraft', body);
    await s.platform.call('remindSignatories', { bizId: body.bizId });
    const calls = await s.sim.admin.calls({ bizId: body.bizId });
    expect(calls.map((c) => [c.operation, c.code, c.ok])).toEqual([
      ['createDraft', '0', true],
      ['createDraft', '1112', false],
      ['remindSignatories', '11011101', false],
    ]);
    expect(calls[0]).toMatchObject({
      contractId: contract.id,
      httpStatus: 200,
      time: expect.any(String),
    });
    expect(
      await s.sim.admin.calls({ operation: 'remindSignatories', bizId: body.bizId }),
    ).toHaveLength(1);
  });

  it('sets faults at run time: the next call of an operation fails with HTTP 503, then calls succeed', async () => {
    await s.sim.admin.setFaults({
      script: [{ operation: 'createDraft', kind: 'http503', times: 1 }],
    });
    const failed = await s.platform.call('createDraft', draft());
    const passed = await s.platform.call('createDraft', draft());
    expect([failed.status, passed.status]).toEqual([503, 200]);
    expect(await s.sim.admin.faults()).toEqual({ script: [] });
    const [faulted] = (await s.sim.admin.calls({ operation: 'createDraft' })).filter(
      (c) => c.fault,
    );
    expect(faulted).toMatchObject({ httpStatus: 503, ok: false, applied: false, fault: 'http503' });
    await s.sim.admin.setFaults({});
  });

  it('sets faults at run time: code21990001 answers the internal-error code', async () => {
    await s.sim.admin.setFaults({
      script: [{ operation: 'approveContract', kind: 'code21990001', times: 1 }],
    });
    const answer = await s.platform.call('approveContract', { bizId: uniqueId('biz'), pass: true });
    expect(answer.body).toMatchObject({ responseCode: '21990001' });
    await s.sim.admin.setFaults({});
  });

  it('refuses an invalid fault configuration with 400', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: deliberately not a FaultConfig.
    const bad: any = { requestsPerSecond: -1 };
    await expect(s.sim.admin.setFaults(bad)).rejects.toThrow(/requestsPerSecond/);
    // biome-ignore lint/suspicious/noExplicitAny: deliberately not a FaultConfig.
    const badStatus: any = { script: [{ kind: 'maintenance', times: 1, status: 700 }] };
    await expect(s.sim.admin.setFaults(badStatus)).rejects.toMatchObject({
      message: expect.stringContaining('script.0.status'),
      details: { httpStatus: 400 },
    });
  });

  it('changes a seal status, and 404s an unknown seal', async () => {
    expect(await s.sim.admin.setSealStatus('2003', 'FROZEN')).toMatchObject({
      id: '2003',
      status: 'FROZEN',
    });
    await expect(s.sim.admin.setSealStatus('0', 'NORMAL')).rejects.toThrow(/does not exist/);
    await s.sim.admin.setSealStatus('2003', 'NORMAL');
  });

  it('resets: no contracts, no calls, fixture seals and the start faults', async () => {
    await ok(s.platform, 'createDraft', draft());
    await s.sim.admin.setSealStatus('2001', 'DELETED');
    await s.sim.admin.setFaults({ latency: { fixedMs: 5 } });
    await s.sim.admin.reset();
    expect(await s.sim.admin.health()).toEqual({ ok: true, contracts: 0 });
    expect(await s.sim.admin.calls()).toEqual([]);
    expect(await s.sim.admin.faults()).toEqual({});
    expect((await s.platform.call('createDraft', draft())).body.code).toBe(0);
  });
});

describe('faults given at start', () => {
  const s = useSimulator({ faults: { requestsPerSecond: 1 } });

  it('a requests-per-second limit answers HTTP 429 with code 429 beyond the rate', async () => {
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() => s.platform.call('createDraft', draft())),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses).toContain(429);
    const throttled = answers.find((a) => a.status === 429);
    expect(throttled?.body).toMatchObject({ code: 429 });
  });
});
