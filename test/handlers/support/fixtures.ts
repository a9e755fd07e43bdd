/**
 * Commands' building blocks for the default simulator fixtures (fixtures/default.json): the
 * connecting party, its subsidiary, seal and approver, signatories and documents.
 */
import { randomUUID } from 'node:crypto';
import { pdfBase64 } from '../../support/pdf.js';

export const COMPANY = 'Demo Trading Co., Ltd.';
export const SUBSIDIARY = 'Demo Trading (Shanghai) Co., Ltd.';
export const SEAL = '2001';
export const APPROVER = { contact: '13800000003', contactType: 'MOBILE' } as const;

export const initiator = (actions: unknown[] = [{ type: 'COMPANY', sealId: SEAL }]) => ({
  tenantType: 'COMPANY',
  tenantName: COMPANY,
  actions,
});

export const person = (n = 1) => ({
  tenantType: 'PERSONAL',
  tenantName: `Person ${n}`,
  receiver: { contact: `1390000${String(n).padStart(4, '0')}`, contactType: 'MOBILE' },
});

export async function fileDocument(title: string, ...pages: string[]) {
  const base64 = await pdfBase64(pages.length > 0 ? pages : [`${title}: SEAL-HERE SIGN-HERE`]);
  return { source: 'file', title, fileSuffix: 'pdf', file: { base64 } } as const;
}

export const templateDocument = (title = 'NDA') =>
  ({ source: 'template', title, templateId: 'tpl-nda' }) as const;

/** A command's envelope: a fresh commandId for this bizId. */
export const meta = (bizId: string, tenantName?: string) => ({
  commandId: randomUUID(),
  bizId,
  ...(tenantName ? { tenantName } : {}),
});
