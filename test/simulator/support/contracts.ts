// Request bodies for the default fixtures (fixtures/default.json), valid unless a test says otherwise.
import { uniqueId } from '../../support/unique.js';

export const COMPANY = 'Demo Trading Co., Ltd.';
export const SUBSIDIARY = 'Demo Trading (Shanghai) Co., Ltd.';
export const APPROVER = { contact: '13800000003', contactType: 'MOBILE' } as const;
export const EMPLOYEE = { contact: '13800000001', contactType: 'MOBILE' } as const;
export const LEFT_EMPLOYEE = { contact: '13800000009', contactType: 'MOBILE' } as const;
export const NORMAL_SEAL = '2001';
export const FROZEN_SEAL = '2002';

/** The caller's company signing with its seal. */
export function initiator(
  actions: unknown[] = [{ type: 'COMPANY', sealId: NORMAL_SEAL }],
  tenantName = COMPANY,
) {
  return { tenantType: 'COMPANY', tenantName, actions };
}

export function person(name = 'Bob Chen', mobile = '13900000001') {
  return {
    tenantType: 'PERSONAL',
    tenantName: name,
    receiver: { contact: mobile, contactType: 'MOBILE' },
  };
}

export function externalCompany(
  name = 'Acme Supplies Ltd.',
  actions: unknown[] = [{ type: 'COMPANY' }],
) {
  return {
    tenantType: 'COMPANY',
    tenantName: name,
    receiver: { contact: '13911111111', contactType: 'MOBILE' },
    actions,
  };
}

/** A draft of the default category: the initiator and one individual. */
export function draft(overrides: Record<string, unknown> = {}) {
  return {
    bizId: uniqueId('biz'),
    subject: 'Service agreement',
    signatories: [initiator(), person()],
    ...overrides,
  };
}

/** Template parameters that fill every required initiator parameter of tpl-purchase. */
export const PURCHASE_PARAMS = [
  { name: 'buyer', value: 'Demo Trading Co., Ltd.' },
  { name: 'amount', value: '1000.00' },
];
