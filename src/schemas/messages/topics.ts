/**
 * The topic table: each command type, the topic it arrives on, and its schema. Routing,
 * publishing, the generated JSON Schemas and the AsyncAPI document are all read from here.
 */
import type { z } from 'zod';
import {
  AddDocumentCommand,
  AddSignatoryCommand,
  ApproveCommand,
  CreateContractCommand,
  InitiateCommand,
  RemindCommand,
} from './commands.js';
import type { CommandType } from './events.js';

export const COMMANDS = {
  'create-contract': {
    schema: CreateContractCommand,
    summary: 'Create a draft, add its documents, and initiate it when asked',
  },
  'add-document': {
    schema: AddDocumentCommand,
    summary: 'Add a document (file or template) to a draft',
  },
  initiate: {
    schema: InitiateCommand,
    summary: 'Initiate a draft, optionally with signing positions',
  },
  approve: { schema: ApproveCommand, summary: 'Record an employee approval (pass or reject)' },
  remind: { schema: RemindCommand, summary: 'Remind the signatories of a contract' },
  'add-signatory': {
    schema: AddSignatoryCommand,
    summary: 'Add a signatory to an initiated contract',
  },
} as const satisfies Record<CommandType, { schema: z.ZodType; summary: string }>;

export type Command<T extends CommandType = CommandType> = z.infer<(typeof COMMANDS)[T]['schema']>;

export const DEFAULT_TOPIC_PREFIX = 'signing-bridge.';

export interface TopicNames {
  readonly commands: Readonly<Record<CommandType, string>>;
  readonly events: string;
  readonly deadLetter: string;
  readonly ledger: string;
}

/** Topic names from one prefix; each can still be overridden one by one in configuration. */
export function topicNames(
  prefix = DEFAULT_TOPIC_PREFIX,
  overrides: Partial<Omit<TopicNames, 'commands'>> & {
    commands?: Partial<Record<CommandType, string>>;
  } = {},
): TopicNames {
  const commands = Object.fromEntries(
    Object.keys(COMMANDS).map((type) => [
      type,
      overrides.commands?.[type as CommandType] ?? `${prefix}commands.${type}`,
    ]),
  ) as Record<CommandType, string>;
  return {
    commands,
    events: overrides.events ?? `${prefix}events`,
    deadLetter: overrides.deadLetter ?? `${prefix}dead-letter`,
    ledger: overrides.ledger ?? `${prefix}ledger`,
  };
}
