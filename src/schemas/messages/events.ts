/**
 * What the bridge publishes: one events topic keyed by bizId, each record a CloudEvents 1.0
 * event in Kafka binary mode (attributes in `ce_*` headers, `data` as the JSON value). Result
 * events say what the platform did; failure events say why a command ended without it.
 */
import { z } from 'zod';
import { AddSignatoryResult, CreateDraftResult } from '../platform/operations.js';

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

const eventBase = {
  commandId: z.string(),
  bizId: z.string(),
  commandType: CommandType,
  contractId: z.string().optional(),
};

/** A failure, as subscribers see it: our stable code or the platform's, and what to do. */
export const ErrorInfo = z.object({
  code: z.string(),
  name: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  platformCode: z.string().optional(),
  platformName: z.string().optional(),
  /** The first few fields a rejection or refusal concerns... */
  fields: z.array(z.object({ path: z.string(), rule: z.string() })).optional(),
  /** ...and how many more there were. */
  fieldsOmitted: z.number().int().min(1).optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfo>;

export const DraftCreated = z.object({ ...eventBase, contract: CreateDraftResult });
export const DocumentAdded = z.object({
  ...eventBase,
  documentId: z.string(),
  title: z.string(),
  /** Position of the document in a create-contract command; absent for add-document. */
  index: z.number().int().min(0).optional(),
});
export const ContractInitiated = z.object({ ...eventBase });
export const ApprovalRecorded = z.object({
  ...eventBase,
  pass: z.boolean(),
  comment: z.string().optional(),
});
export const ReminderSent = z.object({
  ...eventBase,
  signatoryId: z.string().optional(),
  onlySigning: z.boolean(),
});
export const SignatoryAdded = z.object({ ...eventBase, signatory: AddSignatoryResult });
export const ContractCreated = z.object({
  ...eventBase,
  documentIds: z.array(z.string()),
  initiated: z.boolean(),
  /**
   * True when a step's outcome was unknown after a crash or timeout and was settled by the
   * platform's answer to the retry (1112 for the draft, 1101 for initiation); contractId may
   * then be absent, and the contract is addressed by bizId.
   */
  reconciled: z.boolean(),
});

/** The command could not be read or broke a rule; a copy went to the dead-letter topic. */
export const CommandRejected = z.object({
  commandId: z.string().optional(),
  bizId: z.string().optional(),
  commandType: CommandType,
  error: ErrorInfo,
  source: z.object({ topic: z.string(), partition: z.number().int(), offset: z.string() }),
});
/** The platform refused a step with a business code; retrying would change nothing. */
export const CommandFailed = z.object({ ...eventBase, step: z.string(), error: ErrorInfo });
/** A step kept failing transiently until the retry budget ran out. */
export const CommandGaveUp = z.object({
  ...eventBase,
  step: z.string(),
  attempts: z.number().int().min(1),
  error: ErrorInfo,
});
/** The contract the command addresses did not appear within the configured wait. */
export const PreconditionTimedOut = z.object({
  ...eventBase,
  step: z.string(),
  waitedMs: z.number().int().min(0),
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

/**
 * Whether an event of this type ends a command of that type. A document.added ends an
 * add-document command but is one step of a create-contract saga.
 */
export function isTerminal(type: EventType, commandType: CommandType): boolean {
  const terminal: boolean | CommandType = EVENTS[type].terminal;
  return terminal === true || terminal === commandType;
}

/** CloudEvents `id`, the same for every publication of one step of one command. */
export function eventId(commandId: string, step: string): string {
  return `${commandId}/${step}`;
}
