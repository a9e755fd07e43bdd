/**
 * What a person may type into the console, read and bounded before anything is looked up: each
 * field has its rule, and a value that breaks it is refused naming the field (a clear page, 400),
 * never handed on. Query strings and forms are read by the server under size limits of their own.
 */
import { ERROR_CODES } from '../../error-codes.js';
import type { OperatorInputInvalid } from '../../errors.js';
import { CommandId } from '../../schemas/messages/commands.js';
import { COMMAND_TYPES, type CommandType } from '../../schemas/messages/index.js';
import { inputInvalid } from '../ops/operator.js';
import { parseSince, SINCE_HELP } from '../ops/since.js';

export const BIZ_ID_MAX = 200;
/** Dead letters one action may name. */
export const LETTERS_MAX = 1_000;
/** A control character (C0 or DEL), by code point: no control character in a regex literal. */
const isControl = (text: string) =>
  [...text].some((c) => (c.codePointAt(0) ?? 0) < 0x20 || c.codePointAt(0) === 0x7f);

export type Fields = URLSearchParams;

export type { OperatorInputInvalid as InputInvalid };

/** One value of a field, or undefined when absent or empty; given twice, refused. */
export function single(fields: Fields, name: string): string | undefined {
  const values = fields.getAll(name);
  if (values.length > 1) throw inputInvalid(name, 'give it once');
  const value = values[0];
  return value === undefined || value === '' ? undefined : value;
}

/** A bizId as commands carry it: 1 to 200 characters, no surrounding spaces, no control characters. */
export function bizIdOf(fields: Fields): string | undefined {
  const value = single(fields, 'bizId');
  if (value === undefined) return undefined;
  if (value.length > BIZ_ID_MAX) throw inputInvalid('bizId', `at most ${BIZ_ID_MAX} characters`);
  if (value.trim() !== value) throw inputInvalid('bizId', 'no spaces before or after it');
  if (isControl(value)) throw inputInvalid('bizId', 'no control characters');
  return value;
}

/** A commandId: printable ASCII without spaces, at most 200 characters (the command schema's rule). */
export function commandIdOf(fields: Fields): string | undefined {
  const value = single(fields, 'commandId');
  if (value === undefined) return undefined;
  const parsed = CommandId.safeParse(value);
  if (!parsed.success) {
    throw inputInvalid('commandId', 'printable ASCII without spaces, at most 200 characters');
  }
  return parsed.data;
}

/** An offset: a whole number of at most 19 digits. */
export function offsetOf(fields: Fields, name: string): bigint | undefined {
  const value = single(fields, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,19}$/.test(value)) throw inputInvalid(name, 'a whole number (an offset)');
  return BigInt(value);
}

export const WINDOWS = { '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000, '7d': 604_800_000 };
export type WindowName = keyof typeof WINDOWS;

/** How far back a chart looks: one of WINDOWS, 24h when not given. */
export function windowOf(fields: Fields): WindowName {
  const value = single(fields, 'window') ?? '24h';
  if (!(value in WINDOWS))
    throw inputInvalid('window', `one of ${Object.keys(WINDOWS).join(', ')}`);
  return value as WindowName;
}

/** A time (ms since the epoch): an ISO 8601 date or time, or a duration back from now. */
export function timeOf(fields: Fields, name: string, now = Date.now()): number | undefined {
  const value = single(fields, name);
  if (value === undefined) return undefined;
  try {
    return parseSince(value, now).getTime();
  } catch {
    throw inputInvalid(name, SINCE_HELP);
  }
}

export function commandTypeOf(fields: Fields): CommandType | undefined {
  const value = single(fields, 'type');
  if (value === undefined) return undefined;
  if (!(COMMAND_TYPES as readonly string[]).includes(value)) {
    throw inputInvalid('type', `one of ${COMMAND_TYPES.join(', ')}`);
  }
  return value as CommandType;
}

/** Why a record was dead-lettered: one of the bridge's error codes. */
export function reasonOf(fields: Fields): string | undefined {
  const value = single(fields, 'reason');
  if (value === undefined) return undefined;
  if (!Object.hasOwn(ERROR_CODES, value)) throw inputInvalid('reason', 'one of the SB_ERR_ codes');
  return value;
}

export interface LetterId {
  readonly partition: number;
  readonly offset: string;
}

/** Dead letters named by `<partition>/<offset>`, each once, LETTERS_MAX at most. */
export function letterIdsOf(fields: Fields, name = 'letter'): LetterId[] {
  const values = fields.getAll(name);
  if (values.length > LETTERS_MAX) throw inputInvalid(name, `at most ${LETTERS_MAX} at once`);
  const ids = new Map<string, LetterId>();
  for (const value of values) {
    const match = /^(\d{1,5})\/(\d{1,19})$/.exec(value);
    if (!match) throw inputInvalid(name, 'each as <partition>/<offset>');
    ids.set(value, { partition: Number(match[1]), offset: BigInt(match[2] as string).toString() });
  }
  return [...ids.values()];
}

export function letterIdText(id: LetterId): string {
  return `${id.partition}/${id.offset}`;
}
