// Section 4.1 and the category semantics of section 1, one test per rule and code.
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/schemas/platform/operations.js';
import { uniqueId } from '../support/unique.js';
import {
  APPROVER,
  COMPANY,
  draft,
  EMPLOYEE,
  externalCompany,
  FROZEN_SEAL,
  initiator,
  LEFT_EMPLOYEE,
  person,
  SUBSIDIARY,
} from './support/contracts.js';
import { useSimulator } from './support/simulator.js';

describe('create draft (/v2/contract/draft)', () => {
  const s = useSimulator();
  const create = (body: unknown) => s.platform.call('createDraft', body);

  it('a valid draft with send false stays DRAFT and returns ids for contract, signatories and actions', async () => {
    const answer = await create(draft({ send: false }));
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe(0);
    const contract = OPERATIONS.createDraft.result.parse(answer.body.result);
    expect(contract.status).toBe('DRAFT');
    expect(contract.id).toMatch(/^\d{19}$/);
    expect(contract.signatories?.map((s) => s.status)).toEqual(['DRAFT', 'DRAFT']);
    expect(contract.signatories?.[0]?.actions?.[0]).toMatchObject({
      status: 'INIT',
      id: expect.any(String),
    });
  });

  it('1112: a repeated bizId is refused', async () => {
    const body = draft();
    expect((await create(body)).body.code).toBe(0);
    const again = await create({ ...body, subject: 'another' });
    expect(again.body).toMatchObject({ code: 1112, responseCode: '00001112' });
  });

  it('1113: a draft without signatories is refused', async () => {
    expect((await create(draft({ signatories: [] }))).body.code).toBe(1113);
    expect((await create(draft({ signatories: undefined }))).body.code).toBe(1113);
  });

  it('1102: duplicated signatories are refused (same individual contact twice)', async () => {
    const answer = await create(
      draft({ signatories: [initiator(), person('Bob'), person('Bobby')] }),
    );
    expect(answer.body.code).toBe(1102);
  });

  it('1102: duplicated signatories are refused (same company twice)', async () => {
    const answer = await create(
      draft({ signatories: [initiator(), externalCompany(), externalCompany()] }),
    );
    expect(answer.body.code).toBe(1102);
  });

  it('1103: a company signatory without a signing flow is refused', async () => {
    const answer = await create(draft({ signatories: [initiator([]), person()] }));
    expect(answer.body.code).toBe(1103);
    const noActions = await create(
      draft({ signatories: [initiator(), { ...externalCompany(), actions: undefined }] }),
    );
    expect(noActions.body.code).toBe(1103);
  });

  it('1105: an AUDIT action of a company signatory without operators is refused', async () => {
    const flow = [{ type: 'AUDIT' }, { type: 'COMPANY', sealId: '2001' }];
    expect((await create(draft({ signatories: [initiator(flow), person()] }))).body.code).toBe(
      1105,
    );
  });

  it('1111: an OPERATOR node without a handler is refused', async () => {
    const answer = await create(
      draft({ signatories: [initiator(), externalCompany('Acme', [{ type: 'OPERATOR' }])] }),
    );
    expect(answer.body.code).toBe(1111);
  });

  it('1201: an unknown seal is refused', async () => {
    const answer = await create(
      draft({ signatories: [initiator([{ type: 'COMPANY', sealId: '9999' }]), person()] }),
    );
    expect(answer.body.code).toBe(1201);
    const corp = await create(
      draft({
        signatories: [initiator([{ type: 'COMPANY', corpSealIds: ['2001', '9998'] }]), person()],
      }),
    );
    expect(corp.body.code).toBe(1201);
  });

  it('1203: a seal that is not in normal status is refused', async () => {
    const answer = await create(
      draft({ signatories: [initiator([{ type: 'COMPANY', sealId: FROZEN_SEAL }]), person()] }),
    );
    expect(answer.body.code).toBe(1203);
  });

  it('1301: signatories that differ from the category preset in count are refused', async () => {
    const body = draft({
      category: { id: 'cat-sales' },
      signatories: [initiator(), person(), person('Eve', '13900000002')],
    });
    expect((await create(body)).body.code).toBe(1301);
  });

  it('1301: signatories that differ from the category preset in type are refused', async () => {
    const body = draft({
      category: { name: 'Sales contract' },
      signatories: [initiator(), externalCompany()],
    });
    expect((await create(body)).body.code).toBe(1301);
  });

  it('1301: signatories that differ from the category preset in order are refused', async () => {
    const preset = { id: 'cat-purchase' };
    const ok = await create(
      draft({ category: preset, signatories: [initiator(), externalCompany(), person()] }),
    );
    expect(ok.body.code).toBe(0);
    const reordered = await create(
      draft({ category: preset, signatories: [initiator(), person(), externalCompany()] }),
    );
    expect(reordered.body.code).toBe(1301);
    expect(reordered.body.message).toContain('[COMPANY, PERSONAL]');
  });

  it('1302: a faulty category configuration (a preset operator who has left) is refused', async () => {
    const answer = await create(draft({ category: { id: 'cat-broken' } }));
    expect(answer.body.code).toBe(1302);
    expect(answer.body.message).toContain('13800000009');
  });

  it('11041701: a creator who is not an employee of the company is refused', async () => {
    const unknown = await create(
      draft({ creator: { contact: '10000000000', contactType: 'MOBILE' } }),
    );
    expect(unknown.body).toMatchObject({ code: 11041701, responseCode: '11041701' });
    const left = await create(draft({ creator: LEFT_EMPLOYEE }));
    expect(left.body.code).toBe(11041701);
    expect((await create(draft({ creator: { ...EMPLOYEE, name: 'Li Lei' } }))).body.code).toBe(0);
  });

  it('11041701: an operator of our own company who is not an active employee is refused', async () => {
    const flow = [
      { type: 'AUDIT', operators: [LEFT_EMPLOYEE] },
      { type: 'COMPANY', sealId: '2001' },
    ];
    expect((await create(draft({ signatories: [initiator(flow), person()] }))).body.code).toBe(
      11041701,
    );
  });

  it('14990002: a tenantName that is neither the company nor one of its subsidiaries is refused', async () => {
    const answer = await create(draft({ tenantName: 'Somebody Else Ltd.' }));
    expect(answer.body.code).toBe(14990002);
  });

  it('11990005: a request failing the request schema (bad expireTime format, unknown tenantType) is refused', async () => {
    const badTime = await create(draft({ expireTime: '2030/01/01' }));
    expect(badTime.body).toMatchObject({ code: 11990005, responseCode: '11990005' });
    expect(badTime.body.message).toContain('expireTime');
    const badType = await create(draft({ signatories: [{ tenantType: 'ROBOT' }] }));
    expect(badType.body.code).toBe(11990005);
    expect((await create('{not json')).body.code).toBe(11990005);
  });

  it('11990005: an unknown category is refused', async () => {
    expect((await create(draft({ category: { id: 'no-such-category' } }))).body.code).toBe(
      11990005,
    );
  });

  it('category: a subject is required when the category has no subject rule', async () => {
    const answer = await create(draft({ subject: undefined }));
    expect(answer.body.code).toBe(11990005);
    expect(answer.body.message).toContain('subject');
  });

  it('category: the subject rule generates the subject when none is given', async () => {
    const id = uniqueId('sales');
    const body = draft({
      bizId: id,
      subject: undefined,
      category: { id: 'cat-sales' },
      signatories: [initiator([]), person()],
    });
    const answer = await create(body);
    expect(answer.body.code).toBe(0);
    expect(answer.body.result.subject).toBe(`Sales contract ${id}`);
  });

  it('category: a preset initiator flow replaces the requested one', async () => {
    const body = draft({
      category: { id: 'cat-sales' },
      signatories: [initiator([{ type: 'LP' }]), person()],
    });
    const answer = await create(body);
    expect(answer.body.result.signatories[0].actions).toMatchObject([
      { type: 'COMPANY', sealId: '2001' },
    ]);
  });

  it('category: without a preset initiator flow the request must carry the initiator actions (1103)', async () => {
    expect((await create(draft({ signatories: [initiator([]), person()] }))).body.code).toBe(1103);
  });

  it('category: the default expiry comes from the category (30 days for the default category)', async () => {
    const answer = await create(draft());
    const expected = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(answer.body.result.expireTime.slice(0, 10)).toBe(expected);
    expect(answer.body.result.category).toEqual({ id: 'cat-general', name: 'General contract' });
  });

  it('category: the name must identify exactly one category', async () => {
    const answer = await create(draft({ category: { name: 'No such name' } }));
    expect(answer.body.code).toBe(11990005);
  });

  it('1401: a draft with send true and no document is refused', async () => {
    const answer = await create(draft({ send: true }));
    expect(answer.body.code).toBe(1401);
  });

  it('send true with the category template moves the contract to SIGNING at once', async () => {
    const body = draft({
      send: true,
      category: { id: 'cat-purchase' },
      subject: undefined,
      signatories: [initiator(), externalCompany(), person()],
      templateParams: [
        { name: 'buyer', value: COMPANY },
        { name: 'amount', value: '1000.00' },
      ],
    });
    const answer = await create(body);
    expect(answer.body.code).toBe(0);
    const contract = OPERATIONS.createDraft.result.parse(answer.body.result);
    expect(contract.status).toBe('SIGNING');
    expect(contract.signatories?.map((s) => s.status)).toEqual(['SIGNING', 'WAITING', 'WAITING']);
    expect(contract.signatories?.[0]?.actions?.map((a) => [a.type, a.status])).toEqual([
      ['AUDIT', 'START'],
      ['COMPANY', 'INIT'],
    ]);
    expect(contract.templateParams).toEqual([
      { name: 'buyer', value: COMPANY, required: true },
      { name: 'amount', value: '1000.00', required: true },
    ]);
    expect(contract.documents?.[0]).toMatchObject({ title: 'Purchase agreement', pageCount: 2 });
    expect(contract.signatories?.[0]?.actions?.[0]?.operators).toEqual([APPROVER]);
  });

  it('category: required initiator template parameters must be filled before initiation', async () => {
    const body = draft({
      send: true,
      category: { id: 'cat-purchase' },
      signatories: [initiator(), externalCompany(), person()],
      templateParams: [{ name: 'buyer', value: COMPANY }],
    });
    const answer = await create(body);
    expect(answer.body.code).toBe(11990005);
    expect(answer.body.message).toContain('amount');
  });

  it('category: expireTime must be later than the initiation time', async () => {
    const body = draft({
      send: true,
      category: { id: 'cat-purchase' },
      expireTime: '2020-01-01 00:00:00',
      signatories: [initiator(), externalCompany(), person()],
      templateParams: [
        { name: 'buyer', value: COMPANY },
        { name: 'amount', value: '1' },
      ],
    });
    const answer = await create(body);
    expect(answer.body.code).toBe(11990005);
    expect(answer.body.message).toContain('expireTime');
  });

  it('a refused draft leaves no contract behind: its bizId can be used again', async () => {
    const body = draft({ send: true });
    expect((await create(body)).body.code).toBe(1401);
    expect((await create({ ...body, send: false })).body.code).toBe(0);
  });

  it('a contract created as a subsidiary belongs to the subsidiary', async () => {
    const body = draft({
      tenantName: SUBSIDIARY,
      signatories: [initiator(undefined, SUBSIDIARY), person()],
    });
    const answer = await create(body);
    expect(answer.body.result.tenantName).toBe(SUBSIDIARY);
    const record = await s.sim.admin.contract({ bizId: body.bizId });
    expect(record.signatories[0]?.initiator).toBe(true);
  });
});
