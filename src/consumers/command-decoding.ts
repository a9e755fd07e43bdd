/**
 * Parse what comes in, bounded: a command record's size is checked before anything of it is
 * read, its JSON's shape before it is validated, then its value against its topic's schema and
 * its key against its bizId.
 */
import {
  type CommandCrashLoop,
  CommandInvalid,
  CommandLimitExceeded,
  type InvalidField,
} from '../errors.js';
import type { InboundRecord } from '../kafka/index.js';
import { describeFields, invalidFields } from '../schemas/issues.js';
import { COMMANDS, type Command, type CommandType } from '../schemas/messages/index.js';
import { type JsonLimits, jsonShapeBreach } from './json-shape.js';
import { type LimitBreach, type RecordLimits, recordLimitBreach } from './record-limits.js';

export interface DecodingLimits {
  readonly record: RecordLimits;
  readonly json: JsonLimits;
}

/** Issues named in a rejection; the rest are counted. */
export const MAX_REPORTED_FIELDS = 20;

export type DecodedCommand =
  | { readonly ok: true; readonly command: Command }
  | {
      readonly ok: false;
      readonly error: CommandInvalid | CommandLimitExceeded | CommandCrashLoop;
      /** What could be made out of a broken record, for the rejection event. */
      readonly commandId?: string | undefined;
      readonly bizId?: string | undefined;
    };

export function decodeCommand(
  record: InboundRecord,
  type: CommandType,
  limits: DecodingLimits,
): DecodedCommand {
  const tooLarge = recordLimitBreach(record, limits.record);
  if (tooLarge) return overLimit(record, tooLarge);
  const json = parseJson(record.value);
  if (json === undefined) {
    return invalid(record, 'not-json', 'the value is not JSON', [
      { path: '(value)', rule: 'JSON' },
    ]);
  }
  const commandId = stringField(json, 'commandId');
  const bizId = stringField(json, 'bizId');
  const tooComplex = jsonShapeBreach(json, limits.json);
  if (tooComplex) return { ...overLimit(record, tooComplex), commandId, bizId };
  const parsed = COMMANDS[type].schema.safeParse(json);
  if (!parsed.success) {
    const { fields, fieldsOmitted } = reported(invalidFields(parsed.error));
    const more = fieldsOmitted > 0 ? ` (and ${fieldsOmitted} more)` : '';
    const message = `not a valid ${type} command: ${describeFields(fields)}${more}`;
    return { ...invalid(record, 'schema', message, fields, fieldsOmitted), commandId, bizId };
  }
  const command = parsed.data as Command;
  // The key decides the partition, and so the owner and the ledger partition of the bizId.
  if (record.key?.toString() !== command.bizId) {
    const rule = 'the record key must equal bizId exactly';
    return { ...invalid(record, 'key', rule, [{ path: '(key)', rule }]), commandId, bizId };
  }
  return { ok: true, command };
}

/** A rejection names the first few issues and counts the rest: its event stays small. */
function reported(all: InvalidField[]) {
  const fields = all.slice(0, MAX_REPORTED_FIELDS);
  return { fields, fieldsOmitted: all.length - fields.length };
}

function invalid(
  record: InboundRecord,
  reason: CommandInvalid['details']['reason'],
  message: string,
  fields: InvalidField[],
  fieldsOmitted = 0,
) {
  const { topic, partition, offset } = record;
  const error = new CommandInvalid(`${topic}/${partition}@${offset}: ${message}`, {
    details: { topic, partition, offset, reason, fields, fieldsOmitted },
  });
  return { ok: false as const, error };
}

function overLimit(record: InboundRecord, breach: LimitBreach) {
  const { topic, partition, offset } = record;
  const where = breach.path === undefined ? '' : ` at ${breach.path}`;
  const message = `${topic}/${partition}@${offset}: ${breach.actual} is over the limit of ${breach.max} (${breach.limit})${where}; the record is not read further`;
  const error = new CommandLimitExceeded(message, {
    details: { topic, partition, offset, ...breach },
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
