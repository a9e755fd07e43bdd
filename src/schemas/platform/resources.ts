/**
 * The resources of section 2 of the interface spec. Fields the service fills ("returned") are
 * optional so one schema reads both what we send and what comes back. Where the spec marks a
 * field required only in add-signatory, that operation has its own stricter variant below.
 */
import { z } from 'zod';
import {
  AcrossType,
  ActionStatus,
  ActionType,
  AddSignatoryActionType,
  AddSignatoryStamperType,
  ContactType,
  ContractStatus,
  LIMITS,
  LongId,
  NonEmptyString,
  SignatoryStatus,
  StamperType,
  TemplateParamType,
  TenantType,
  Timestamp,
} from './primitives.js';

export const Category = z
  .object({ id: z.string().optional(), name: z.string().optional() })
  .refine((c) => Boolean(c.id || c.name), {
    message: 'a category needs its id or its name',
  });

export const User = z.object({
  name: z.string().optional(),
  contact: z.string().optional(),
  contactType: ContactType.optional(),
});

export const Attachment = z.object({
  id: z.string().optional(),
  title: z.string().optional(),
  required: z.boolean().optional(),
  needSign: z.boolean().optional(),
});

export const UserAuthInfo = z.object({
  idCardNo: z.string().optional(),
  bankNo: z.string().optional(),
  bankMobile: z.string().optional(),
});

export const TemplateParam = z.object({
  name: NonEmptyString,
  value: z.string().optional(),
  required: z.boolean().optional(),
});

export const TemplateParamBean = z.object({
  name: z.string(),
  value: z.string().optional(),
  required: z.boolean().optional(),
  type: TemplateParamType.optional(),
});

export const Document = z.object({
  id: z.string(),
  title: z.string().optional(),
  pageCount: z.number().int().nonnegative().optional(),
  createTime: Timestamp.optional(),
  params: z.array(TemplateParamBean).optional(),
});

/** Fields both position variants share: where on the page and in which document. */
const stamperLocation = {
  documentId: z.string().optional(),
  keyword: z.string().min(1).optional(),
  keywordIndex: z.number().int().min(-1).optional(),
  offsetX: z.number().finite().optional(),
  offsetY: z.number().finite().optional(),
};

export const locatedByKeywordOrPage = (s: {
  keyword?: string | undefined;
  page?: number | undefined;
}) => s.keyword !== undefined || s.page !== undefined;
export const locationRule = {
  message: 'a position is located by keyword or by page',
  path: ['keyword'],
};

/** The fields of a signing position given at initiation (`/v2/contract/send`). */
export const StamperFields = z.object({
  ...stamperLocation,
  actionId: z.string().optional(),
  signatoryId: z.string().optional(),
  type: StamperType,
  page: z.number().int().min(0).optional(),
  sealId: z.never({ error: 'sealId is not yet supported at initiation' }).optional(),
});

/** Company positions (seals) hang on a signing action; individual ones on a signatory. */
export function isCompanyPosition(type: string): boolean {
  return type === 'COMPANY' || type === 'LP' || type === 'ACROSS_PAGE';
}

/** A signing position given at initiation, with the rules that tie its fields together. */
export const Stamper = StamperFields.refine(locatedByKeywordOrPage, locationRule)
  .refine((s) => s.type !== 'PERSONAL' || Boolean(s.signatoryId), {
    message: 'an individual (PERSONAL) position needs signatoryId',
    path: ['signatoryId'],
  })
  .refine((s) => !isCompanyPosition(s.type) || Boolean(s.actionId), {
    message: 'a company position (COMPANY, LP, ACROSS_PAGE) needs actionId',
    path: ['actionId'],
  });

/** A signing position in add-signatory, with the extra sizing and across-page fields. */
export const AddSignatoryStamper = z
  .object({
    ...stamperLocation,
    type: AddSignatoryStamperType,
    documentId: NonEmptyString,
    documentIds: z.string().optional(),
    acrossType: AcrossType.optional(),
    sealPageConfig: z
      .string()
      .regex(/^\d+(~\d+)?(,\d+(~\d+)?)*$/, 'pages or ranges like "1,3~5"')
      .optional(),
    sealId: z.string().optional(),
    page: z.number().int().min(-1).optional(),
    width: z.number().int().min(LIMITS.width.min).max(LIMITS.width.max).optional(),
    height: z.number().int().min(LIMITS.height.min).max(LIMITS.height.max).optional(),
    rotationDegrees: z
      .number()
      .min(LIMITS.rotationDegrees.min)
      .max(LIMITS.rotationDegrees.max)
      .optional(),
  })
  .refine((s) => s.type !== 'ACROSS_PAGE_SCOPE' || Boolean(s.sealPageConfig), {
    message: 'an ACROSS_PAGE_SCOPE position needs sealPageConfig',
    path: ['sealPageConfig'],
  });

const actionFields = {
  id: z.string().optional(),
  status: ActionStatus.optional(),
  complateTime: Timestamp.optional(),
  name: z.string().optional(),
  serialNo: z.number().int().min(0).optional(),
  sealId: z.string().optional(),
  operators: z.array(User).optional(),
  corpSealIds: z.array(LongId).max(LIMITS.corpSealIdsMax).optional(),
  corpOperators: z.array(User).optional(),
};

export const Action = z.object({ ...actionFields, type: ActionType });

const signatoryFields = {
  id: z.string().optional(),
  status: SignatoryStatus.optional(),
  complateTime: Timestamp.optional(),
  tenantName: z.string().optional(),
  receiver: User.optional(),
  serialNo: z.number().int().optional(),
  attachments: z.array(Attachment).optional(),
  userAuthInfo: UserAuthInfo.optional(),
  category: Category.optional(),
  defaultCategoryAccepted: z.boolean().optional(),
};

/**
 * A signatory at draft time. The spec marks no field required here, but tenantType decides
 * every rule that follows (company flows, preset matching), so it is required.
 */
export const Signatory = z.object({
  ...signatoryFields,
  tenantType: TenantType,
  actions: z.array(Action).optional(),
});

const AddSignatoryUser = User.extend({ contact: NonEmptyString, contactType: ContactType });

export const AddSignatoryAction = z.object({
  ...actionFields,
  type: AddSignatoryActionType,
  stampers: z.array(AddSignatoryStamper).optional(),
});

/** The signatory of add-signatory, with the fields that operation requires. */
export const AddSignatorySignatory = z
  .object({
    ...signatoryFields,
    tenantType: TenantType,
    tenantName: NonEmptyString,
    receiver: AddSignatoryUser,
    actions: z.array(AddSignatoryAction).optional(),
    attachments: z.array(Attachment.extend({ title: NonEmptyString })).optional(),
    stampers: z.array(AddSignatoryStamper).optional(),
  })
  .refine((s) => s.tenantType === 'PERSONAL' || !s.stampers?.length, {
    message: "a company signatory's positions go in its actions, not in stampers",
    path: ['stampers'],
  });

export const Contract = z.object({
  id: z.string().optional(),
  bizId: z.string().optional(),
  tenantName: z.string().optional(),
  subject: z.string().optional(),
  description: z.string().optional(),
  sn: z.string().optional(),
  expireTime: Timestamp.optional(),
  ordinal: z.boolean().optional(),
  send: z.boolean().optional(),
  category: Category.optional(),
  creator: User.optional(),
  status: ContractStatus.optional(),
  signatories: z.array(Signatory).optional(),
  templateParams: z.array(TemplateParam).optional(),
  documents: z.array(Document).optional(),
});

export type Category = z.infer<typeof Category>;
export type User = z.infer<typeof User>;
export type Attachment = z.infer<typeof Attachment>;
export type UserAuthInfo = z.infer<typeof UserAuthInfo>;
export type TemplateParam = z.infer<typeof TemplateParam>;
export type TemplateParamBean = z.infer<typeof TemplateParamBean>;
export type Document = z.infer<typeof Document>;
export type Stamper = z.infer<typeof Stamper>;
export type AddSignatoryStamper = z.infer<typeof AddSignatoryStamper>;
export type Action = z.infer<typeof Action>;
export type AddSignatoryAction = z.infer<typeof AddSignatoryAction>;
export type Signatory = z.infer<typeof Signatory>;
export type AddSignatorySignatory = z.infer<typeof AddSignatorySignatory>;
export type Contract = z.infer<typeof Contract>;
