/**
 * The commands other services publish, one Kafka topic per type. Every command carries
 * `commandId` (the idempotency key), `bizId` (also the message key) and an optional
 * `tenantName`; its `payload` uses the spec's own field names and is derived from the
 * operation's request schema, so a command and the call it becomes cannot drift apart.
 */
import { z } from 'zod';
import {
  AddDocumentByTemplateFields,
  AddSignatoryFields,
  ApproveContractFields,
  CreateDraftRequest,
  InitiateContractFields,
  RemindSignatoriesFields,
} from '../platform/operations.js';
import { FileSuffix, NonEmptyString } from '../platform/primitives.js';
import {
  isCompanyPosition,
  locatedByKeywordOrPage,
  locationRule,
  StamperFields,
} from '../platform/resources.js';
import { strictDeep } from './strict.js';

/** Inline files stay small: a Kafka message is 1 MB by default, and base64 adds a third. */
export const INLINE_FILE_MAX_BYTES = 512 * 1024;

export const CommandId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .describe(
    'Names one action of its bizId: unique within the bizId, not across bizIds. Sent again with the same content it is a duplicate (or, after an ending without a final verdict, a resend); with other content it is refused, SB_ERR_COMMAND_ID_REUSED.',
  );

const commandMeta = {
  commandId: CommandId,
  bizId: NonEmptyString.max(200),
  tenantName: z.string().optional(),
};

const Base64 = z
  .string()
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be standard base64')
  .refine((s) => (s.length * 3) / 4 <= INLINE_FILE_MAX_BYTES + 2, {
    message: `inline files are at most ${INLINE_FILE_MAX_BYTES} bytes; pass a url instead`,
  });

/** A file travels inline (base64) or by reference (an http(s) URL the bridge downloads). */
export const FileContent = z.union([
  z.object({ base64: Base64 }),
  z.object({ url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }) }),
]);

export const FileDocument = z.object({
  source: z.literal('file'),
  title: NonEmptyString,
  fileSuffix: FileSuffix,
  file: FileContent,
});

export const TemplateDocument = AddDocumentByTemplateFields.pick({
  title: true,
  templateId: true,
  templateParams: true,
}).extend({ source: z.literal('template') });

export const DocumentSource = z.discriminatedUnion('source', [FileDocument, TemplateDocument]);

/**
 * A position given with create-contract. The ids a position needs are only known once the
 * draft exists, so it names its signatory, action and document by their index in the command.
 */
export const PlannedStamper = StamperFields.omit({
  actionId: true,
  signatoryId: true,
  documentId: true,
})
  .extend({
    signatoryIndex: z.number().int().min(0),
    actionIndex: z.number().int().min(0).optional(),
    documentIndex: z.number().int().min(0).optional(),
  })
  .refine(locatedByKeywordOrPage, locationRule)
  .refine((s) => !isCompanyPosition(s.type) || s.actionIndex !== undefined, {
    message: 'a company position (COMPANY, LP, ACROSS_PAGE) needs actionIndex',
    path: ['actionIndex'],
  });

const Draft = CreateDraftRequest.omit({ bizId: true, tenantName: true, send: true });

export const CreateContractPayload = z
  .object({
    contract: Draft,
    documents: z.array(DocumentSource).max(50).default([]),
    initiate: z.object({ stampers: z.array(PlannedStamper).optional() }).optional(),
  })
  .superRefine(checkPlannedReferences);

type CreateContractShape = {
  contract: z.infer<typeof Draft>;
  documents: unknown[];
  initiate?: { stampers?: Array<z.infer<typeof PlannedStamper>> | undefined } | undefined;
};

/** Indexes in planned positions must point at a signatory, action and document of the command. */
function checkPlannedReferences(payload: CreateContractShape, ctx: z.RefinementCtx): void {
  if (payload.initiate && payload.documents.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['documents'],
      message: 'initiating needs at least one document',
    });
  }
  const signatories = payload.contract.signatories ?? [];
  payload.initiate?.stampers?.forEach((stamper, i) => {
    const path = ['initiate', 'stampers', i];
    const signatory = signatories[stamper.signatoryIndex];
    if (!signatory) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'signatoryIndex'],
        message: `no signatory at index ${stamper.signatoryIndex}`,
      });
    } else if (stamper.actionIndex !== undefined && !signatory.actions?.[stamper.actionIndex]) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'actionIndex'],
        message: `signatory ${stamper.signatoryIndex} has no action at index ${stamper.actionIndex}`,
      });
    }
    if (stamper.documentIndex !== undefined && stamper.documentIndex >= payload.documents.length) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'documentIndex'],
        message: `no document at index ${stamper.documentIndex}`,
      });
    }
  });
}

const withoutAddress = { bizId: true, tenantName: true } as const;

export const AddDocumentPayload = z.discriminatedUnion('source', [
  FileDocument.extend({ contractId: z.string().optional() }),
  TemplateDocument.extend({ contractId: z.string().optional() }),
]);
export const InitiatePayload = InitiateContractFields.omit(withoutAddress);
export const ApprovePayload = ApproveContractFields.omit(withoutAddress);
export const RemindPayload = RemindSignatoriesFields.omit(withoutAddress);
export const AddSignatoryPayload = AddSignatoryFields.omit(withoutAddress);

const command = <P extends z.ZodType>(payload: P) =>
  z.strictObject({ ...commandMeta, payload: strictDeep(payload) });

export const CreateContractCommand = command(CreateContractPayload);
export const AddDocumentCommand = command(AddDocumentPayload);
export const InitiateCommand = command(InitiatePayload);
export const ApproveCommand = command(ApprovePayload);
export const RemindCommand = command(RemindPayload);
export const AddSignatoryCommand = command(AddSignatoryPayload);

export type FileContent = z.infer<typeof FileContent>;
export type DocumentSource = z.infer<typeof DocumentSource>;
export type PlannedStamper = z.infer<typeof PlannedStamper>;
export type CreateContractCommand = z.infer<typeof CreateContractCommand>;
export type AddDocumentCommand = z.infer<typeof AddDocumentCommand>;
export type InitiateCommand = z.infer<typeof InitiateCommand>;
export type ApproveCommand = z.infer<typeof ApproveCommand>;
export type RemindCommand = z.infer<typeof RemindCommand>;
export type AddSignatoryCommand = z.infer<typeof AddSignatoryCommand>;
