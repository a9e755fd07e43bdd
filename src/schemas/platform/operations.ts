/**
 * The seven operations of section 4: request and result shapes, and the table that both the
 * api-client and the simulator route by. A path, an envelope or a shape is stated only here.
 */
import { z } from 'zod';
import { answered } from './answers.js';
import { FileSuffix, LongId, NonEmptyString } from './primitives.js';
import {
  AddSignatoryAction,
  AddSignatorySignatory,
  Contract,
  Signatory,
  Stamper,
  TemplateParam,
} from './resources.js';

/** "One of contractId/bizId required; they must not both be empty." */
const contractRef = {
  contractId: z.string().optional(),
  bizId: z.string().optional(),
  tenantName: z.string().optional(),
};
/**
 * Also runs when a field already failed, on what was sent (a contractId that came as a number
 * the LongId refused, say), so it must not assume strings.
 */
const hasContractRef = (r: { contractId?: unknown; bizId?: unknown }) =>
  isGiven(r.contractId) || isGiven(r.bizId);
const isGiven = (value: unknown) =>
  typeof value === 'string' ? value.trim() !== '' : value !== undefined && value !== null;
const contractRefRule = { message: 'one of contractId or bizId is required', path: ['contractId'] };

export const CreateDraftRequest = Contract.omit({ id: true, status: true, documents: true });
/** Results are answers: a status or type the spec does not list is kept (see answers.ts). */
export const CreateDraftResult = answered(Contract);

/** The form fields of add-by-file; the file itself travels as the multipart `file` part. */
export const AddDocumentByFileFields = z.object({
  ...contractRef,
  title: NonEmptyString,
  fileSuffix: FileSuffix,
});
export const AddDocumentByFileRequest = AddDocumentByFileFields.refine(
  hasContractRef,
  contractRefRule,
);

export const AddDocumentByTemplateFields = z.object({
  ...contractRef,
  title: NonEmptyString,
  templateId: NonEmptyString,
  templateParams: z.array(TemplateParam.pick({ name: true, value: true })).optional(),
});
export const AddDocumentByTemplateRequest = AddDocumentByTemplateFields.refine(
  hasContractRef,
  contractRefRule,
);

export const DocumentAddedResult = answered(z.object({ documentId: z.string() }));

export const InitiateContractFields = z.object({
  ...contractRef,
  stampers: z.array(Stamper).optional(),
});
export const InitiateContractRequest = InitiateContractFields.refine(
  hasContractRef,
  contractRefRule,
);

export const ApproveContractFields = z.object({
  ...contractRef,
  pass: z.boolean(),
  comment: z.string().optional(),
});
export const ApproveContractRequest = ApproveContractFields.refine(hasContractRef, contractRefRule);

export const RemindSignatoriesFields = z.object({
  ...contractRef,
  signatoryId: z.string().optional(),
  onlySigning: z.boolean().optional(),
});
export const RemindSignatoriesRequest = RemindSignatoriesFields.refine(
  hasContractRef,
  contractRefRule,
);

export const AddSignatoryFields = z.object({
  ...contractRef,
  contractId: LongId.optional(),
  signatory: AddSignatorySignatory,
  locateAllStamperKeywords: z.boolean().optional(),
});
export const AddSignatoryRequest = AddSignatoryFields.refine(hasContractRef, contractRefRule);

/** The added signatory; its flow may hold the add-signatory-only PERSONAL node. */
export const AddSignatoryResult = answered(
  Signatory.partial({ tenantType: true }).extend({
    actions: z.array(AddSignatoryAction).optional(),
  }),
);

/** Operations with no result object. */
const NoResult = z.unknown().transform(() => undefined);

export type Envelope = 'A' | 'B';

export interface OperationSpec<
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
> {
  readonly path: `/v2/${string}`;
  /** A: `code`/`message`/`result`; B: `responseCode`/`message`. */
  readonly envelope: Envelope;
  readonly body: 'json' | 'multipart';
  readonly request: Req;
  readonly result: Res;
}

const operation = <Req extends z.ZodType, Res extends z.ZodType>(
  spec: OperationSpec<Req, Res>,
): OperationSpec<Req, Res> => spec;

export const OPERATIONS = {
  createDraft: operation({
    path: '/v2/contract/draft',
    envelope: 'A',
    body: 'json',
    request: CreateDraftRequest,
    result: CreateDraftResult,
  }),
  addDocumentByFile: operation({
    path: '/v2/document/addbyfile',
    envelope: 'A',
    body: 'multipart',
    request: AddDocumentByFileRequest,
    result: DocumentAddedResult,
  }),
  addDocumentByTemplate: operation({
    path: '/v2/document/addbytemplate',
    envelope: 'A',
    body: 'json',
    request: AddDocumentByTemplateRequest,
    result: DocumentAddedResult,
  }),
  initiateContract: operation({
    path: '/v2/contract/send',
    envelope: 'A',
    body: 'json',
    request: InitiateContractRequest,
    result: NoResult,
  }),
  approveContract: operation({
    path: '/v2/contract/employeeaudit',
    envelope: 'B',
    body: 'json',
    request: ApproveContractRequest,
    result: NoResult,
  }),
  remindSignatories: operation({
    path: '/v2/contract/notice',
    envelope: 'B',
    body: 'json',
    request: RemindSignatoriesRequest,
    result: NoResult,
  }),
  addSignatory: operation({
    path: '/v2/signatory/add',
    envelope: 'B',
    body: 'json',
    request: AddSignatoryRequest,
    result: AddSignatoryResult,
  }),
} as const;

export type OperationName = keyof typeof OPERATIONS;
export type OperationRequest<Op extends OperationName> = z.input<
  (typeof OPERATIONS)[Op]['request']
>;
export type OperationResult<Op extends OperationName> = z.output<(typeof OPERATIONS)[Op]['result']>;

export type CreateDraftRequest = z.input<typeof CreateDraftRequest>;
export type AddDocumentByFileRequest = z.input<typeof AddDocumentByFileRequest>;
export type AddDocumentByTemplateRequest = z.input<typeof AddDocumentByTemplateRequest>;
export type InitiateContractRequest = z.input<typeof InitiateContractRequest>;
export type ApproveContractRequest = z.input<typeof ApproveContractRequest>;
export type RemindSignatoriesRequest = z.input<typeof RemindSignatoriesRequest>;
export type AddSignatoryRequest = z.input<typeof AddSignatoryRequest>;
