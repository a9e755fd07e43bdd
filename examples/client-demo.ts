/**
 * The api-client end to end against the simulator: a draft with the company and one person,
 * a PDF document, initiation with positions found by keyword. Run: `npm run example:client`.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { SigningClient } from '../src/api-client/index.js';
import { startSimulator } from '../src/simulator/index.js';

/** The connecting party of the default fixtures, and its usable seal. */
const COMPANY = 'Demo Trading Co., Ltd.';
const SEAL_ID = '2001';

async function leasePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([595, 842]);
  const lines = [
    'LEASE AGREEMENT',
    'Landlord seal: PARTY-A-SEAL',
    'Tenant signature: PARTY-B-SIGN',
  ];
  lines.forEach((text, i) => {
    page.drawText(text, { x: 72, y: 760 - i * 40, size: 14, font });
  });
  return pdf.save();
}

function print(step: string, value: unknown): void {
  console.log(`${step}:`, JSON.stringify(value, null, 2) ?? 'done');
}

async function main(): Promise<void> {
  const simulator = await startSimulator({ log: false });
  const client = new SigningClient({
    baseUrl: simulator.url,
    appToken: 'demo-app-token',
    appSecret: 'demo-app-secret',
  });
  try {
    const draft = await client.createDraft({
      bizId: `lease-${Date.now()}`,
      subject: 'Flat lease',
      signatories: [
        {
          tenantType: 'COMPANY',
          tenantName: COMPANY,
          actions: [{ type: 'COMPANY', sealId: SEAL_ID }],
        },
        {
          tenantType: 'PERSONAL',
          tenantName: 'Chen Jing',
          receiver: { name: 'Chen Jing', contact: '13900000000', contactType: 'MOBILE' },
        },
      ],
    });
    print('draft created', draft);

    const { documentId } = await client.addDocumentByFile({
      contractId: draft.id,
      title: 'Lease agreement',
      file: await leasePdf(),
      fileSuffix: 'pdf',
    });
    print('document added', { documentId });

    const company = draft.signatories?.find((s) => s.tenantType === 'COMPANY');
    const person = draft.signatories?.find((s) => s.tenantType === 'PERSONAL');
    const result = await client.initiateContract({
      contractId: draft.id,
      stampers: [
        {
          type: 'COMPANY',
          actionId: company?.actions?.[0]?.id,
          documentId,
          keyword: 'PARTY-A-SEAL',
        },
        { type: 'PERSONAL', signatoryId: person?.id, documentId, keyword: 'PARTY-B-SIGN' },
      ],
    });
    print('contract initiated', result);
  } finally {
    await client.close();
    await simulator.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
