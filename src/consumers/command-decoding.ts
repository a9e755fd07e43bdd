/** Parse what comes in: a command record's value against its topic's schema, and its key. */

import { CommandInvalid, type InvalidField } from '../errors.js';
import type { InboundRecord } from '../kafka/index.js';
import { describeFields, invalidFields } from '../schemas/issues.js';
import { COMMANDS, type Command, type CommandType } from '../schemas/messages/index.js';

export type DecodedCommand =
  | { readonly ok: true; readonly command: Command }
  | {
      readonly ok: false;
      readonly error: CommandInvalid;
      /** What could be made out of a broken record, for the rejection event. */
      readonly commandId?: string | undefined;
      readonly bizId?: string | undefined;
    };

export function decodeCommand(record: InboundRecord, type: CommandType): DecodedCommand {
  const json = parseJson(record.value);
  if (json === undefined) {
    return invalid(record, 'not-json', 'the value is not JSON', [
      { path: '(value)', rule: 'JSON' },
    ]);
  }
  const commandId = stringField(json, 'commandId');
  const bizId = stringField(json, 'bizId');
  const parsed = COMMANDS[type].schema.safeParse(json);
  if (!parsed.success) {
    const fields = invalidFields(parsed.error);
    const message = `not a valid ${type} command: ${describeFields(fields)}`;
    return { ...invalid(record, 'schema', message, fields), commandId, bizId };
  }
  const command = parsed.data as Command;
  // The key decides the partition, and so the owner and the ledger partition of the bizId.
  if (record.key?.toString() !== command.bizId) {
    const rule = 'the record key must equal bizId exactly';
    return { ...invalid(record, 'key', rule, [{ path: '(key)', rule }]), commandId, bizId };
  }
  return { ok: true, command };
}

function invalid(
  record: InboundRecord,
  reason: CommandInvalid['details']['reason'],
  message: string,
  fields: InvalidField[],
) {
  const { topic, partition, offset } = record;
  const error = new CommandInvalid(`${topic}/${partition}@${offset}: ${message}`, {
    details: { topic, partition, offset, reason, fields },
  });
  return { ok: false as const, error };
}

function parseJson(value: Buffer | null): unknown {
  if (value === null) return undefined;
  try {
    return JSON.parse(value.toString());
  } catch {
    return undefined;
  }
}

function stringField(json: unknown, name: string): string | undefined {
  const value =
    typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
