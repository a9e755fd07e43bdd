/**
 * A command as the SDK sends it: checked against its zod schema before anything is sent, keyed
 * by its bizId, with a commandId made up when it has none.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { CommandRefused, type InvalidField } from '../errors.js';
import type { OutboundRecord } from '../kafka/index.js';
import { commandFingerprint } from '../ledger/index.js';
import { describeFields, invalidFields } from '../schemas/issues.js';
import {
  COMMAND_TYPES,
  COMMANDS,
  type CommandType,
  type TopicNames,
} from '../schemas/messages/index.js';

/**
 * The largest command the SDK sends, as JSON: under Kafka's default `message.max.bytes`
 * (1,048,588) with room for the record's own overhead. Larger files go by URL.
 */
export const COMMAND_MAX_BYTES = 1_000_000;

/** What `send()` takes: the command as its schema accepts it, `commandId` optional. */
export type CommandInput<T extends CommandType> = Omit<
  z.input<(typeof COMMANDS)[T]['schema']>,
  'commandId'
> & { commandId?: string | undefined };

/** One command of a `sendMany()` batch. */
export type CommandToSend = {
  [T in CommandType]: { type: T; command: CommandInput<T> };
}[CommandType];

export interface PreparedCommand {
  readonly type: CommandType;
  readonly commandId: string;
  readonly bizId: string;
  /** What the bridge fingerprints it as (src/ledger/fingerprint.ts). */
  readonly fingerprint: string;
  readonly record: OutboundRecord;
}

/** @throws CommandRefused naming every field that is wrong; nothing is sent then. */
export function prepareCommand(
  type: CommandType,
  input: CommandInput<CommandType>,
  topics: TopicNames,
): PreparedCommand {
  if (!COMMAND_TYPES.includes(type)) {
    refuse(String(type), [{ path: '(type)', rule: `must be one of ${COMMAND_TYPES.join(', ')}` }]);
  }
  const { commandId: given = randomUUID(), ...rest } = input;
  const command = { commandId: given, ...rest };
  const parsed = COMMANDS[type].schema.safeParse(command);
  if (!parsed.success) refuse(type, invalidFields(parsed.error));
  // The key decides the partition; the bridge refuses a record keyed otherwise than its bizId.
  if (parsed.data.bizId !== command.bizId) {
    refuse(type, [{ path: 'bizId', rule: 'must not have spaces around it: it is the record key' }]);
  }
  const value = JSON.stringify(command);
  const bytes = Buffer.byteLength(value);
  if (bytes > COMMAND_MAX_BYTES) {
    const rule = `is ${bytes} bytes as JSON, over the ${COMMAND_MAX_BYTES} bytes a command may have (send large files by url)`;
    refuse(type, [{ path: '(command)', rule }]);
  }
  const { commandId, bizId } = parsed.data;
  // What the schema accepts is plain JSON: the bridge parses the same command from the value.
  const fingerprint = commandFingerprint(type, parsed.data);
  const record = { topic: topics.commands[type], key: bizId, value };
  return { type, commandId, bizId, fingerprint, record };
}

function refuse(type: string, fields: InvalidField[]): never {
  throw new CommandRefused(`${type} command not sent: ${describeFields(fields)}`, {
    details: { commandType: type, fields },
  });
}
