/**
 * What the bridge publishes: one events topic keyed by bizId, each record a CloudEvents 1.0
 * event in Kafka binary mode (attributes in `ce_*` headers, `data` as the JSON value). Result
 * events say what the platform did; failure events say why a command ended without it.
 */
import { z } from 'zod';
import { answered } from '../platform/answers.js';
import {
  ActionStatus,
  ActionType,
  AddSignatoryActionType,
  ContractStatus,
  SignatoryStatus,
  TenantType,
} from '../platform/primitives.js';

export const COMMAND_TYPES = [
  'create-contract',
  'add-document',
  'initiate',
  'approve',
  'remind',
  'add-signatory',
] as const;
export const CommandType = z.enum(COMMAND_TYPES);
export type CommandType = z.infer<typeof CommandType>;

/**
 * Said by every event schema: events go to every subscriber for the topic's whole retention, so
 * they carry ids, statuses, titles, counts and codes, and never a person's name, contact (mobile
 * number, e-mail address), identity or bank number. Text quoted from the platform is masked.
 */
export const PERSONAL_DATA_NOTE =
  'Carries no personal data: no names of individuals, contact values, identity or bank numbers.';

/** Where a command record is: a terminal event names the record it ended. */
export const RecordPosition = z.object({
  topic: z.string(),
  partition: z.number().int(),
  offset: z.string(),
});
export type RecordPosition = z.infer<typeof RecordPosition>;

const eventBase = {
  commandId: z
    .string()
    .describe(
      'The command this event is about: its idempotency key, unique within its bizId (the same commandId of another bizId is another command).',
    ),
  bizId: z.string().describe("The contract's business id: the record key and ce_subject."),
  commandType: CommandType.describe('The type of that command.'),
  contractId: z.string().optional().describe("The platform's contract id, once known."),
  source: RecordPosition.optional().describe(
    'On the event that ends a command: the command record it ended, where its producer wrote it (the position CommandProducer.send returns; a forwarded copy names its original). The same commandId sent again after an ending that is not final ends again, from another record. Since 0.3.0.',
  ),
  fingerprint: z
    .string()
    .optional()
    .describe(
      "On the event that ends a command: the command's fingerprint (a hash of its type and content, as CommandProducer.send returns it). The same commandId sent again with another fingerprint is not answered by this ending: that record is refused with SB_ERR_COMMAND_ID_REUSED. Since 0.3.0.",
    ),
};

/** A failure, as subscribers see it: our stable code or the platform's, and what to do. */
export const ErrorInfo = z
  .object({
    code: z.string().describe('Our stable error code, SB_ERR_<AREA>_<WHAT>.'),
    name: z.string().describe('The error class.'),
    message: z
      .string()
      .describe(
        'What went wrong and what to do. Personal data quoted by the platform is masked: e-mail addresses as [email], phone, card and identity numbers (9 digits or more) as [number].',
      ),
    retryable: z.boolean().describe('Whether sending the command again may succeed as it is.'),
    platformCode: z.string().optional().describe("The platform's business code, when it refused."),
    platformName: z.string().optional().describe("That code's name in the platform's table."),
    fields: z
      .array(z.object({ path: z.string(), rule: z.string() }))
      .optional()
      .describe('The first fields that broke a rule, and the rule; never their values.'),
    fieldsOmitted: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('How many more fields broke a rule than `fields` names.'),
  })
  .describe('Why the command ended without the platform doing what it asked.');
export type ErrorInfo = z.infer<typeof ErrorInfo>;

const actionFields = {
  id: z.string().optional().describe("The platform's action id (an initiate position's actionId)."),
  status: ActionStatus.optional(),
  name: z.string().optional().describe("The action's title."),
  serialNo: z.number().int().optional().describe("Its place in the signatory's flow."),
};

const signatoryFields = {
  id: z.string().optional().describe("The platform's signatory id (remind's signatoryId)."),
  tenantType: TenantType,
  tenantName: z
    .string()
    .optional()
    .describe("The company's name, for a COMPANY signatory; never an individual's name."),
  status: SignatoryStatus.optional(),
  serialNo: z.number().int().optional().describe('Its place in the signing order.'),
};

/**
 * A signatory of a draft: who signs in which order, never their contact or identity. Its
 * statuses and types are the platform's, read tolerantly: a value the spec does not list is
 * published as the platform sent it.
 */
export const DraftSignatory = answered(
  z.object({
    ...signatoryFields,
    index: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Its position in the command's payload.contract.signatories; absent for one the category added.",
      ),
    actions: z.array(z.object({ ...actionFields, type: ActionType })),
  }),
);
export type DraftSignatory = z.infer<typeof DraftSignatory>;

/** The signatory add-signatory added, as the platform answered, without personal data. */
export const AddedSignatory = answered(
  z.object({
    ...signatoryFields,
    tenantType: TenantType.optional(),
    actions: z.array(z.object({ ...actionFields, type: AddSignatoryActionType })),
  }),
);
export type AddedSignatory = z.infer<typeof AddedSignatory>;

export const DraftCreated = z.object({
  ...eventBase,
  status: answered(ContractStatus).optional(),
  subject: z.string().optional().describe("The contract's title."),
  sn: z.string().optional().describe("The contract's serial number."),
  expireTime: z.string().optional().describe('When signing closes (yyyy-MM-dd HH:mm:ss).'),
  category: z
    .object({ id: z.string().optional(), name: z.string().optional() })
    .optional()
    .describe('The contract category the platform filed it under.'),
  signatories: z.array(DraftSignatory).describe('In the order the platform signs them.'),
});
export const DocumentAdded = z.object({
  ...eventBase,
  documentId: z.string().describe("The platform's id of the document."),
  title: z.string().describe("The document's title."),
  index: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Position of the document in a create-contract command; absent for add-document.'),
});
export const ContractInitiated = z.object({ ...eventBase });
export const ApprovalRecorded = z.object({
  ...eventBase,
  pass: z.boolean().describe('true: approved; false: refused.'),
});
export const ReminderSent = z.object({
  ...eventBase,
  signatoryId: z.string().optional().describe('The signatory reminded; absent: whoever signs now.'),
  onlySigning: z.boolean(),
});
export const SignatoryAdded = z.object({ ...eventBase, signatory: AddedSignatory });
export const ContractCreated = z.object({
  ...eventBase,
  documentIds: z.array(z.string()).describe("The documents' ids, in the command's order."),
  initiated: z.boolean().describe('Whether the contract was initiated (signatories notified).'),
  reconciled: z
    .boolean()
    .describe(
      "True when a step's outcome was unknown after a crash or timeout and was settled by the platform's answer to the retry (1112 for the draft, 1101 for initiation); contractId may then be absent, and the contract is addressed by bizId.",
    ),
});

/** The command could not be read or broke a rule; a copy went to the dead-letter topic. */
/**
 * Whether the ending spends the commandId (docs/design.md, "Only the platform's verdict is
 * final"): a failure event says which it is.
 */
const final = z
  .boolean()
  .optional()
  .describe(
    "true: the platform's verdict on this command (or a request the spec forbids): a command sent again with the same commandId is skipped as a duplicate. false: the bridge could not finish it (retries ran out, the contract did not appear, the outcome of a call is unknown, the record was refused): sent again with the same commandId, it runs again. Always present since 0.3.0; absent in events of earlier releases.",
  );

export const CommandRejected = z.object({
  commandId: z.string().optional().describe('The commandId, when one could be read.'),
  bizId: z.string().optional().describe('The bizId, when one could be read (else the key).'),
  commandType: CommandType.describe('The type of command its topic carries.'),
  final,
  error: ErrorInfo,
  source: RecordPosition.describe(
    'Where the record is: its copy in the dead-letter topic says the same.',
  ),
});
const failedStep = z.string().describe('The step that failed (draft, document:0, initiate, ...).');
/**
 * A step failed for good: the platform refused it (final), or its outcome is unknown, or the
 * bridge could not publish its result (not final).
 */
export const CommandFailed = z.object({ ...eventBase, step: failedStep, final, error: ErrorInfo });
/** A step kept failing transiently until the retry budget ran out. */
export const CommandGaveUp = z.object({
  ...eventBase,
  step: failedStep,
  final,
  attempts: z.number().int().min(1).describe('How many times the step was tried.'),
  error: ErrorInfo,
});
/** The contract the command addresses did not appear within the configured wait. */
export const PreconditionTimedOut = z.object({
  ...eventBase,
  step: failedStep,
  final,
  waitedMs: z.number().int().min(0).describe('How long the contract was waited for.'),
  error: ErrorInfo,
});

/** Every event type, its data schema, whether it ends a command, and what it means. */
export const EVENTS = {
  'signingbridge.draft.created': {
    data: DraftCreated,
    terminal: false,
    summary: 'A create-contract saga created its draft',
  },
  'signingbridge.document.added': {
    data: DocumentAdded,
    terminal: 'add-document',
    summary: 'A document was added to a draft (ends add-document; a step of create-contract)',
  },
  'signingbridge.contract.initiated': {
    data: ContractInitiated,
    terminal: 'initiate',
    summary: 'A contract was initiated: signatories are notified',
  },
  'signingbridge.approval.recorded': {
    data: ApprovalRecorded,
    terminal: 'approve',
    summary: "An employee's approval (pass or reject) was recorded",
  },
  'signingbridge.reminder.sent': {
    data: ReminderSent,
    terminal: 'remind',
    summary: 'The signatories were reminded',
  },
  'signingbridge.signatory.added': {
    data: SignatoryAdded,
    terminal: 'add-signatory',
    summary: 'A signatory was added to an initiated contract',
  },
  'signingbridge.contract.created': {
    data: ContractCreated,
    terminal: 'create-contract',
    summary: 'A create-contract saga finished: draft, documents and initiation when asked',
  },
  'signingbridge.command.rejected': {
    data: CommandRejected,
    terminal: true,
    summary: 'A command could not be read or broke a rule; a copy went to the dead-letter topic',
  },
  'signingbridge.command.failed': {
    data: CommandFailed,
    terminal: true,
    summary: 'The platform refused a step with a business code',
  },
  'signingbridge.command.gave-up': {
    data: CommandGaveUp,
    terminal: true,
    summary: 'A step kept failing transiently until the retry budget ran out',
  },
  'signingbridge.command.precondition-timed-out': {
    data: PreconditionTimedOut,
    terminal: true,
    summary: 'The contract a command addresses did not appear in time',
  },
} as const satisfies Record<
  string,
  { data: z.ZodType; terminal: boolean | CommandType; summary: string }
>;

export type EventType = keyof typeof EVENTS;
export type EventData<T extends EventType> = z.infer<(typeof EVENTS)[T]['data']>;

/** One event to publish: its type, the step it belongs to (for its id), and its data. */
export interface PendingEvent<T extends EventType = EventType> {
  readonly type: T;
  readonly step: string;
  readonly data: EventData<T>;
}

/**
 * Whether an event of this type ends a command of that type. A document.added ends an
 * add-document command but is one step of a create-contract saga.
 */
export function isTerminal(type: EventType, commandType: CommandType): boolean {
  const terminal: boolean | CommandType = EVENTS[type].terminal;
  return terminal === true || terminal === commandType;
}

/**
 * CloudEvents `id`, the same for every publication of one step of one command:
 * `<bizId>/<commandId>/<step>`, and for the event that ends a command `@<topic>/<partition>/<offset>`
 * of the record it ended (a command sent again after an ending that is not final ends again).
 * A commandId is unique within its bizId only, so the bizId is part of it; '%' and '/' in either
 * id are escaped (%25, %2F), so that no two pairs of ids give one id.
 */
export function eventId(
  ids: { readonly bizId: string | undefined; readonly commandId: string },
  step: string,
  ended?: RecordPosition,
): string {
  const base = `${escapeId(ids.bizId ?? '')}/${escapeId(ids.commandId)}/${step}`;
  return ended ? `${base}@${ended.topic}/${ended.partition}/${ended.offset}` : base;
}

// Ids seldom hold either character: a test for them costs a fifth of the two replacements.
const ESCAPED = /[%/]/;

function escapeId(id: string): string {
  if (!ESCAPED.test(id)) return id;
  return id.replaceAll('%', '%25').replaceAll('/', '%2F');
}
