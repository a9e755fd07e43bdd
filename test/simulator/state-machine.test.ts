// Section 3: a contract walked through every status it can reach (DRAFT, SIGNING, COMPLETE,
// REJECTED, EXPIRED), with signatory and action statuses and completion times along the way.
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/schemas/platform/operations.js';
import {
  APPROVER,
  draft,
  externalCompany,
  initiator,
  NORMAL_SEAL,
  person,
} from './support/contracts.js';
import { ok, signingContract } from './support/flows.js';
import { useSimulator } from './support/simulator.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const AUDITED = [
  { type: 'AUDIT', operators: [APPROVER] },
  { type: 'COMPANY', sealId: NORMAL_SEAL },
];

describe('contract state machine', () => {
  const s = useSimulator();

  it('DRAFT -> SIGNING -> COMPLETE: signatories sign in serialNo order, actions run in turn', async () => {
    const contract = await signingContract(s.platform, {
      signatories: [initiator(AUDITED), externalCompany(), person()],
    });
    const [own, acme, bob] = contract.signatories.map((x: { id: string }) => x.id);
    let record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.signatories.map((x) => x.status)).toEqual(['SIGNING', 'WAITING', 'WAITING']);
    expect(record.signatories[0]?.actions.map((a) => a.status)).toEqual(['START', 'INIT']);

    await expect(s.sim.admin.sign(contract.id, acme)).rejects.toThrow(/not its turn/);
    await ok(s.platform, 'approveContract', { contractId: contract.id, pass: true });
    record = await s.sim.admin.sign(contract.id, own);
    expect(record.signatories[0]).toMatchObject({
      status: 'SIGNED',
      complateTime: expect.stringMatching(TIMESTAMP),
    });
    expect(record.signatories[0]?.actions.map((a) => a.status)).toEqual(['FINISH', 'FINISH']);
    expect(record.signatories.map((x) => x.status)).toEqual(['SIGNED', 'SIGNING', 'WAITING']);
    expect(record.signatories[1]?.actions[0]?.status).toBe('START');

    await s.sim.admin.sign(contract.id, acme);
    record = await s.sim.admin.sign(contract.id, bob);
    expect(record.status).toBe('COMPLETE');
    expect(record.complateTime).toMatch(TIMESTAMP);
    expect(record.signatories.every((x) => x.status === 'SIGNED')).toBe(true);
  });

  it('signatories sharing a serialNo sign together', async () => {
    const contract = await signingContract(s.platform, {
      signatories: [
        initiator(),
        { ...externalCompany(), serialNo: 2 },
        { ...person(), serialNo: 2 },
      ],
    });
    const record = await s.sim.admin.sign(contract.id, contract.signatories[0].id);
    expect(record.signatories.map((x) => x.status)).toEqual(['SIGNED', 'SIGNING', 'SIGNING']);
  });

  it('SIGNING -> REJECTED: a signatory refuses; running actions stop', async () => {
    const contract = await signingContract(s.platform);
    const record = await s.sim.admin.reject(contract.id, contract.signatories[0].id);
    expect(record.status).toBe('REJECTED');
    expect(record.signatories.map((x) => x.status)).toEqual(['REJECTED', 'WAITING']);
    expect(record.signatories[0]?.actions[0]?.status).toBe('STOP');
    await expect(s.sim.admin.sign(contract.id, contract.signatories[1].id)).rejects.toThrow(
      /409|turn/,
    );
  });

  it('SIGNING -> EXPIRED: who has not signed expires', async () => {
    const contract = await signingContract(s.platform);
    await s.sim.admin.sign(contract.id, contract.signatories[0].id);
    const record = await s.sim.admin.expire(contract.id);
    expect(record.status).toBe('EXPIRED');
    expect(record.signatories.map((x) => x.status)).toEqual(['SIGNED', 'EXPIRED']);
    await expect(s.sim.admin.expire(contract.id)).rejects.toThrow(/only SIGNING/);
  });

  it('send true creates the contract directly in SIGNING', async () => {
    const answer = await s.platform.call(
      'createDraft',
      draft({
        send: true,
        category: { id: 'cat-purchase' },
        signatories: [initiator(), externalCompany(), person()],
        templateParams: [
          { name: 'buyer', value: 'B' },
          { name: 'amount', value: '1' },
        ],
      }),
    );
    const result = OPERATIONS.createDraft.result.parse(answer.body.result);
    expect(result.status).toBe('SIGNING');
    expect((await s.sim.admin.signAll({ bizId: result.bizId ?? '' })).status).toBe('COMPLETE');
  });
});

describe('contract state machine (expiry by the clock)', () => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const s = useSimulator({ now: () => now, auth: { windowMs: Number.MAX_SAFE_INTEGER } });

  it('SIGNING -> EXPIRED when expireTime passes, seen at the next look', async () => {
    const contract = await signingContract(s.platform, { expireTime: '2030-01-01 01:00:00' });
    expect((await s.sim.admin.contract({ contractId: contract.id })).status).toBe('SIGNING');
    now += 2 * 3_600_000;
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record).toMatchObject({ status: 'EXPIRED', complateTime: '2030-01-01 01:00:00' });
    const remind = await s.platform.call('remindSignatories', { contractId: contract.id });
    expect(remind.body.responseCode).toBe('11011101');
  });
});
