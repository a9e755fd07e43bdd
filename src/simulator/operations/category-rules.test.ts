import { describe, expect, it } from 'vitest';
import { Directory } from '../directory.js';
import { parseFixtures } from '../fixtures.js';
import { PlatformRefusal } from '../refusal.js';
import { checkCategoryConfig, subjectOf } from './category-rules.js';

const fixtures = parseFixtures({
  company: { name: 'Co' },
  employees: [
    { name: 'Here', mobile: '1' },
    { name: 'Gone', mobile: '2', status: 'LEFT' },
  ],
  seals: [{ id: '10', name: 'S' }],
  categories: [
    { id: 'plain', name: 'Plain', default: true },
    {
      id: 'rule',
      name: 'Rule',
      subjectRule: 'Deal {{bizId}} / {{sn}} / {{tenantName}} {{unknown}}',
    },
    {
      id: 'left',
      name: 'Left',
      initiatorActions: [{ type: 'COMPANY', operators: [{ contact: '2', contactType: 'MOBILE' }] }],
    },
    {
      id: 'seal',
      name: 'Seal',
      presetSignatories: [{ tenantType: 'COMPANY', actions: [{ type: 'COMPANY', sealId: '99' }] }],
    },
  ],
  credentials: [{ appToken: 't', appSecret: 's' }],
});
const directory = new Directory(fixtures);
const category = (id: string) => directory.category({ id });
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    if (error instanceof PlatformRefusal) return error;
  }
  throw new Error('expected a refusal');
};

describe('category rules', () => {
  it('a given subject is kept; without one the rule fills bizId, sn and tenantName', () => {
    const input = { bizId: 'B', sn: 'S', tenantName: 'Co' };
    expect(subjectOf(category('rule'), { ...input, subject: 'Mine' })).toBe('Mine');
    expect(subjectOf(category('rule'), input)).toBe('Deal B / S / Co ');
  });

  it('without a rule a subject is required (11990005)', () => {
    expect(
      refusal(() => subjectOf(category('plain'), { sn: 'S', tenantName: 'Co', subject: ' ' })).code,
    ).toBe('11990005');
  });

  it('1302: a preset operator who has left, or a preset seal that is gone, is a faulty configuration', () => {
    expect(refusal(() => checkCategoryConfig(category('left'), directory)).code).toBe('1302');
    expect(refusal(() => checkCategoryConfig(category('seal'), directory)).message).toContain(
      'seal 99',
    );
    expect(() => checkCategoryConfig(category('plain'), directory)).not.toThrow();
  });
});
