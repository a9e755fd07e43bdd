import { randomUUID } from 'node:crypto';
import type { Command } from '../../src/schemas/messages/index.js';
import { pdfBase64 } from './pdf.js';

/** A blank page, base64, made once: every file document carries it. */
let blankPage: Promise<string> | undefined;

export const PERSON = {
  tenantType: 'PERSONAL',
  tenantName: 'Person 1',
  receiver: { contact: '13900000001', contactType: 'MOBILE' },
} as const;

async function fileDocument(title: string) {
  blankPage ??= pdfBase64();
  return { source: 'file', title, fileSuffix: 'pdf', file: { base64: await blankPage } } as const;
}

/** Commands with the least that makes them valid. */
export const commands = {
  /** A draft with one person signing and, when asked, file documents titled `<bizId>/<n>`. */
  async createContract(bizId: string, options: { documents?: number; commandId?: string } = {}) {
    const titles = Array.from({ length: options.documents ?? 0 }, (_, n) => `${bizId}/${n}`);
    const payload = {
      contract: { subject: `Contract ${bizId}`, signatories: [PERSON] },
      documents: await Promise.all(titles.map(fileDocument)),
    };
    const command = { commandId: options.commandId ?? randomUUID(), bizId, payload };
    return { type: 'create-contract' as const, command: command as Command<'create-contract'> };
  },
  async addDocument(bizId: string, title: string, commandId = randomUUID()) {
    const command = { commandId, bizId, payload: await fileDocument(title) };
    return { type: 'add-document' as const, command: command as Command<'add-document'> };
  },
};
