import { randomUUID } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import type { Command } from '../../src/schemas/messages/index.js';

let pdfBase64: Promise<string> | undefined;

/** A one-page PDF, base64, for file documents. */
export function samplePdf(): Promise<string> {
  pdfBase64 ??= (async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]);
    return Buffer.from(await doc.save()).toString('base64');
  })();
  return pdfBase64;
}

export const PERSON = {
  tenantType: 'PERSONAL',
  tenantName: 'Person 1',
  receiver: { contact: '13900000001', contactType: 'MOBILE' },
} as const;

async function fileDocument(title: string) {
  return { source: 'file', title, fileSuffix: 'pdf', file: { base64: await samplePdf() } } as const;
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
