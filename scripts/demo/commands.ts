/**
 * The demo's commands, written against the simulator's default fixtures (fixtures/default.json):
 * the connecting company Demo Trading Co., Ltd., its seal 2001, its approver Wang Fang, the
 * category cat-general (which allows adding signatories after initiation) and the templates
 * tpl-nda and tpl-purchase. Each says which terminal event should end it.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { z } from 'zod';
import type {
  COMMANDS,
  CommandType,
  DraftSignatory,
  EventType,
} from '../../src/schemas/messages/index.js';
import type { Action, Signatory } from '../../src/schemas/platform/resources.js';

export interface StoryCommand {
  readonly type: CommandType;
  readonly command: {
    readonly commandId: string;
    readonly bizId: string;
    readonly payload: unknown;
  };
  /** The terminal event the command should end with. */
  readonly expected: EventType;
  /** What it is about, printed as it is sent. */
  readonly note: string;
  /** Sent as a producer without the SDK would, unchecked: it is meant to break its schema. */
  readonly unchecked?: true;
}

export interface Meta {
  readonly commandId: string;
  readonly bizId: string;
}

type Payload<T extends CommandType> = z.input<(typeof COMMANDS)[T]['schema']>['payload'];

function storyCommand<T extends CommandType>(
  type: T,
  meta: Meta,
  payload: Payload<T>,
  expected: EventType,
  note: string,
): StoryCommand {
  return { type, command: { ...meta, payload }, expected, note };
}

const COMPANY = 'Demo Trading Co., Ltd.';
const SEAL = '2001';

function person(tenantName: string, contact: string) {
  return {
    tenantType: 'PERSONAL',
    tenantName,
    receiver: { contact, contactType: 'MOBILE' },
  } as const;
}

const TENANT = person('Chen Jing', '13900000001');
const SUPPLIER = person('Liu Yang', '13900000002');
const GUARANTOR = person('Zhao Min', '13900000003');

/** The company seals with 2001; with `approval`, Wang Fang (the fixtures' approver) signs off first. */
function company(approval = false): Signatory {
  const seal: Action = { type: 'COMPANY', sealId: SEAL };
  const audit: Action = {
    type: 'AUDIT',
    operators: [{ contact: '13800000003', contactType: 'MOBILE' }],
  };
  return { tenantType: 'COMPANY', tenantName: COMPANY, actions: approval ? [audit, seal] : [seal] };
}

/** A PDF whose text holds the keywords the signing positions are placed by. */
async function leasePdf(): Promise<string> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const pages = [
    ['FLAT LEASE AGREEMENT', `Landlord: ${COMPANY}`, 'Tenant: Chen Jing', 'Rent: 4,800 per month'],
    ['Landlord seal: LANDLORD-SEAL', 'Tenant: TENANT-SIGN', 'Guarantor: GUARANTOR-SIGN'],
  ];
  for (const lines of pages) {
    const page = pdf.addPage([595, 842]);
    for (const [i, text] of lines.entries()) {
      page.drawText(text, { x: 72, y: 760 - i * 30, size: 14, font });
    }
  }
  return Buffer.from(await pdf.save()).toString('base64');
}

/** Created, documented and initiated in one command; the landlord approves before it seals. */
export async function createLease(meta: Meta): Promise<StoryCommand> {
  const payload: Payload<'create-contract'> = {
    contract: {
      subject: 'Flat lease',
      category: { id: 'cat-general' },
      // Not ordinal: the tenant may sign while the landlord approves, so a reminder reaches her.
      ordinal: false,
      signatories: [company(true), TENANT],
    },
    documents: [
      { source: 'file', title: 'Lease', fileSuffix: 'pdf', file: { base64: await leasePdf() } },
      { source: 'template', title: 'Non-disclosure agreement', templateId: 'tpl-nda' },
    ],
    initiate: {
      stampers: [
        {
          type: 'COMPANY',
          signatoryIndex: 0,
          actionIndex: 1,
          documentIndex: 0,
          keyword: 'LANDLORD-SEAL',
        },
        { type: 'PERSONAL', signatoryIndex: 1, documentIndex: 0, keyword: 'TENANT-SIGN' },
      ],
    },
  };
  const note = 'lease: a PDF and the NDA template, initiated with positions by keyword';
  return storyCommand('create-contract', meta, payload, 'signingbridge.contract.created', note);
}

/** A draft without documents: they follow in their own command. */
export function createSupplyDraft(meta: Meta): StoryCommand {
  const contract = { subject: 'Office supplies 2025', signatories: [company(), SUPPLIER] };
  const note = 'supply agreement: a draft, no documents yet';
  const expected = 'signingbridge.contract.created';
  return storyCommand('create-contract', meta, { contract }, expected, note);
}

export function addPurchaseTerms(meta: Meta): StoryCommand {
  const payload: Payload<'add-document'> = {
    source: 'template',
    title: 'Purchase agreement',
    templateId: 'tpl-purchase',
    templateParams: [
      { name: 'buyer', value: COMPANY },
      { name: 'amount', value: '12,500.00' },
      { name: 'deliveryDate', value: '2025-12-01' },
    ],
  };
  const note = 'supply agreement: the tpl-purchase template, filled in';
  return storyCommand('add-document', meta, payload, 'signingbridge.document.added', note);
}

export function approveLease(meta: Meta): StoryCommand {
  const payload = { pass: true, comment: 'Rent and term checked' };
  const note = 'lease: Wang Fang approves for the landlord';
  return storyCommand('approve', meta, payload, 'signingbridge.approval.recorded', note);
}

export function remindTenant(meta: Meta): StoryCommand {
  const note = 'lease: remind whoever is signing';
  return storyCommand('remind', meta, { onlySigning: true }, 'signingbridge.reminder.sent', note);
}

/** A second create-contract for a bizId already used: the platform answers 1112. */
export function createLeaseAgain(meta: Meta): StoryCommand {
  const contract = { subject: 'Flat lease, sent twice', signatories: [company(), TENANT] };
  const note = 'lease again, same bizId: the platform refuses';
  return storyCommand('create-contract', meta, { contract }, 'signingbridge.command.failed', note);
}

/** `pass` must be a boolean: the bridge rejects the record and copies it to the dead letters. */
export function malformedApproval(meta: Meta): StoryCommand {
  const command = { ...meta, payload: { pass: 'yes' } };
  const note = 'lease: pass "yes" breaks the schema';
  const expected = 'signingbridge.command.rejected';
  return { type: 'approve', command, expected, note, unchecked: true };
}

/** Positions need the ids the platform gave the draft's signatories and the document. */
/** `signatories` are the draft's, as its draft.created event lists them. */
export function initiateSupply(
  meta: Meta,
  signatories: readonly DraftSignatory[],
  documentId: string,
): StoryCommand {
  const buyer = signatories.find((s) => s.tenantType === 'COMPANY');
  const supplier = signatories.find((s) => s.tenantType === 'PERSONAL');
  const payload: Payload<'initiate'> = {
    stampers: [
      { type: 'COMPANY', actionId: buyer?.actions[0]?.id, documentId, keyword: 'BUYER-SEAL' },
      { type: 'PERSONAL', signatoryId: supplier?.id, documentId, keyword: 'SUPPLIER-SEAL' },
    ],
  };
  const note = 'supply agreement: positions by keyword in the template';
  return storyCommand('initiate', meta, payload, 'signingbridge.contract.initiated', note);
}

/** Joins the lease while it is being signed, signing where the PDF says GUARANTOR-SIGN. */
export function addGuarantor(meta: Meta, documentId: string): StoryCommand {
  const payload: Payload<'add-signatory'> = {
    signatory: {
      ...GUARANTOR,
      stampers: [{ type: 'PERSONAL', documentId, keyword: 'GUARANTOR-SIGN' }],
    },
  };
  const note = 'lease: a guarantor joins while it is being signed';
  return storyCommand('add-signatory', meta, payload, 'signingbridge.signatory.added', note);
}
