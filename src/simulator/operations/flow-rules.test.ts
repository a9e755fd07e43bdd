import { describe, expect, it } from 'vitest';
import { Directory } from '../directory.js';
import { parseFixtures } from '../fixtures.js';
import { PlatformRefusal } from '../refusal.js';
import { checkFlow, checkOperators, checkSeals, type FlowOwner } from './flow-rules.js';

const directory = new Directory(
  parseFixtures({
    company: { name: 'Co' },
    subsidiaries: [{ name: 'Sub' }],
    employees: [{ name: 'E', email: 'e@co' }],
    seals: [
      { id: '1', name: 'ok' },
      { id: '2', name: 'frozen', status: 'FROZEN' },
    ],
    categories: [{ id: 'c', name: 'C', default: true }],
    credentials: [{ appToken: 't', appSecret: 's' }],
  }),
);

const codeOf = (f: () => unknown) => {
  try {
    f();
    return 'ok';
  } catch (error) {
    return error instanceof PlatformRefusal ? error.code : 'other';
  }
};
const company = (actions: FlowOwner['actions'], tenantName = 'Ext'): FlowOwner => ({
  tenantType: 'COMPANY',
  tenantName,
  actions,
});

describe('flow rules', () => {
  it('1103 / 1105 / 1111 on a company flow; an individual needs none', () => {
    expect(codeOf(() => checkFlow(company([])))).toBe('1103');
    expect(codeOf(() => checkFlow(company([{ type: 'AUDIT' }])))).toBe('1105');
    expect(codeOf(() => checkFlow(company([{ type: 'OPERATOR' }])))).toBe('1111');
    expect(
      codeOf(() => checkFlow(company([{ type: 'OPERATOR', corpOperators: [{ contact: 'x' }] }]))),
    ).toBe('ok');
    expect(codeOf(() => checkFlow({ tenantType: 'PERSONAL' }))).toBe('ok');
  });

  it("11041701 only for our own companies' operators", () => {
    const stranger = [
      { type: 'AUDIT', operators: [{ contact: 'who@co', contactType: 'EMAIL' as const }] },
    ];
    expect(codeOf(() => checkOperators(directory, company(stranger, 'Sub')))).toBe('11041701');
    expect(codeOf(() => checkOperators(directory, company(stranger, 'Ext')))).toBe('ok');
    const known = [
      { type: 'AUDIT', operators: [{ contact: 'e@co', contactType: 'EMAIL' as const }] },
    ];
    expect(codeOf(() => checkOperators(directory, company(known, 'Co')))).toBe('ok');
  });

  it('1201 for an unknown seal, 1203 for one not NORMAL, in sealId and corpSealIds', () => {
    expect(codeOf(() => checkSeals(directory, [{ type: 'COMPANY', sealId: '9' }]))).toBe('1201');
    expect(
      codeOf(() => checkSeals(directory, [{ type: 'COMPANY', corpSealIds: ['1', '2'] }])),
    ).toBe('1203');
    expect(codeOf(() => checkSeals(directory, [{ type: 'COMPANY', sealId: '1' }]))).toBe('ok');
  });
});
