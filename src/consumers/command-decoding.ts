/**
 * Parse what comes in, bounded and lossless: a command record's size is checked before anything
 * of it is read, then its key and value must be UTF-8 (decoded once, never with replacement
 * characters), its JSON's shape is checked before it is validated, then its value against its
 * topic's schema, and its key's bytes against its bizId's.
 */
import {
  CommandInvalid,
  CommandLimitExceeded,
  CommandNotUtf8,
  type InvalidField,
  type RecordRefused,
} from '../errors.js';
import type { InboundRecord } from '../kafka/index.js';
import { commandFingerprint } from '../ledger/index.js';
import { compiled } from '../schemas/compiled.js';
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

// Fatal: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. A byte-order mark
// is kept as a character (so a value starting with one is not JSON), not silently dropped.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type DecodedCommand =
  | {
      readonly ok: true;
      readonly command: Command;
      /** What it asks for, hashed (src/ledger/fingerprint.ts). */
      readonly fingerprint: string;
    }
  | {
      readonly ok: false;
      readonly error: RecordRefused;
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
  const text = record.value === null ? undefined : utf8(record.value);
  if (record.value !== null && text === undefined) return notUtf8(record, 'value');
  const json = parseJson(text);
  const key = record.key === null ? null : utf8(record.key);
  if (key === undefined) {
    // The commandId names the rejection for its producer; the bizId the value claims is not
    // the key's, so the event is keyed by the key's excerpt (job.ts), not by that claim.
    return { ...notUtf8(record, 'key'), commandId: stringField(json, 'commandId') };
  }
  if (json === undefined) {
    return invalid(record, 'not-json', 'the value is not JSON', [
      { path: '(value)', rule: 'JSON' },
    ]);
  }
  const commandId = stringField(json, 'commandId');
  const bizId = stringField(json, 'bizId');
  const tooComplex = jsonShapeBreach(json, limits.json);
  if (tooComplex) return { ...overLimit(record, tooComplex), commandId, bizId };
  const parsed = compiled(COMMANDS[type].schema).safeParse(json);
  if (!parsed.success) {
    const { fields, fieldsOmitted } = reported(invalidFields(parsed.error));
    const more = fieldsOmitted > 0 ? ` (and ${fieldsOmitted} more)` : '';
    const message = `not a valid ${type} command: ${describeFields(fields)}${more}`;
    return { ...invalid(record, 'schema', message, fields, fieldsOmitted), commandId, bizId };
  }
  const command = parsed.data as Command;
  // The key's bytes decide the partition, and so the owner and the ledger partition of the
  // bizId: they must be the bizId's own UTF-8 bytes. The key read as UTF-8 (fatal, above) being
  // the bizId says so: such a decoding never makes a lone surrogate, so its text encodes back to
  // exactly the key's bytes (and a bizId with a lone surrogate, which no UTF-8 spells, is refused).
  if (key !== command.bizId) {
    const rule = 'the record key must be the UTF-8 bytes of bizId exactly';
    return { ...invalid(record, 'key', rule, [{ path: '(key)', rule }]), commandId, bizId };
  }
  return { ok: true, command, fingerprint: commandFingerprint(type, command) };
}

/** The bytes as text, or undefined when they are not UTF-8. */
export function utf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
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

function notUtf8(record: InboundRecord, part: 'key' | 'value') {
  const { topic, partition, offset } = record;
  const error = new CommandNotUtf8(
    `${topic}/${partition}@${offset}: the record ${part} is not valid UTF-8; the bridge reads commands (and their keys) as UTF-8 only, and never replaces bytes it cannot read`,
    { details: { topic, partition, offset, part } },
  );
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

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function stringField(json: unknown, name: string): string | undefined {
  const value =
    typeof json === 'object' && json !== null ? (json as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
