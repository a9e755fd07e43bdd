/**
 * Priority classes: which class each command type belongs to, and each class's weight. Both are
 * `name=value` lists over the defaults; the rule between them (every class in use has a weight)
 * is checked in classChecks.
 */
import { z } from 'zod';
import {
  classesWithoutWeight,
  DEFAULT_COMMAND_CLASSES,
  MAX_CLASS_WEIGHT,
} from '../../consumers/command-classes.js';
import type { InvalidField } from '../../errors.js';
import { COMMAND_TYPES, type CommandType } from '../../schemas/messages/index.js';
import type { TextSchema } from '../parsers.js';
import type { Variable } from '../variable.js';

const CLASS_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const CLASS_RULE = 'a class name (a-z, 0-9 and -, starting with a letter, up to 32)';
/** Six types, so six classes at most in use; a weight list this long is a mistake. */
const MAX_ENTRIES = 32;

/**
 * Comma-separated `name=value` entries, each read by `read` into a value or a problem; every
 * problem is an issue of its own, named by the entry's position, never by what it holds.
 */
function assignments<V>(
  read: (name: string, value: string) => { value: V } | { problem: string },
): TextSchema<Map<string, V>> {
  return z.string().transform((text, context) => {
    const values = new Map<string, V>();
    const entries = text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    if (entries.length > MAX_ENTRIES) {
      context.addIssue({ code: 'custom', message: `must have at most ${MAX_ENTRIES} entries` });
    }
    for (const [index, entry] of entries.slice(0, MAX_ENTRIES).entries()) {
      const at = entry.indexOf('=');
      const name = entry.slice(0, at).trim();
      const result =
        at <= 0
          ? { problem: 'must be name=value' }
          : values.has(name)
            ? { problem: 'names what an earlier entry named' }
            : read(name, entry.slice(at + 1).trim());
      if ('value' in result) values.set(name, result.value);
      else context.addIssue({ code: 'custom', message: `entry ${index + 1} ${result.problem}` });
    }
    return values;
  });
}

const classOfTypes = assignments<string>((type, name) => {
  if (!(COMMAND_TYPES as readonly string[]).includes(type)) {
    return { problem: `must start with a command type (${COMMAND_TYPES.join(', ')})` };
  }
  return CLASS_NAME.test(name) ? { value: name } : { problem: `must end with ${CLASS_RULE}` };
}).transform((given) => ({
  ...DEFAULT_COMMAND_CLASSES.of,
  ...(Object.fromEntries(given) as Partial<Record<CommandType, string>>),
}));

const weightOfClasses = assignments<number>((name, weight) => {
  if (!CLASS_NAME.test(name)) return { problem: `must start with ${CLASS_RULE}` };
  const n = Number(weight);
  if (!/^\d+$/.test(weight) || n < 1 || n > MAX_CLASS_WEIGHT) {
    return { problem: `must end with a whole number from 1 to ${MAX_CLASS_WEIGHT}` };
  }
  return { value: n };
}).transform((given) => ({ ...DEFAULT_COMMAND_CLASSES.weights, ...Object.fromEntries(given) }));

const text = (pairs: Readonly<Record<string, string | number>>) =>
  Object.entries(pairs)
    .map(([name, value]) => `${name}=${value}`)
    .join(',');

export const CLASSES = [
  {
    name: 'COMMAND_CLASSES',
    group: 'Processing',
    schema: classOfTypes,
    default: text(DEFAULT_COMMAND_CLASSES.of),
    description:
      'The priority class of each command type, as type=class entries; types not named keep their default class. Classes share slots (MAX_IN_FLIGHT), the backlog (MAX_PENDING, MAX_PENDING_BYTES) and platform rate tokens by weight; one class for every type turns priorities off.',
  },
  {
    name: 'CLASS_WEIGHTS',
    group: 'Processing',
    schema: weightOfClasses,
    default: text(DEFAULT_COMMAND_CLASSES.weights),
    description: `The weight of each class, as class=weight entries (1 to ${MAX_CLASS_WEIGHT}); classes not named keep their default weight. While classes wait together, each gets slots, backlog and rate tokens in proportion to its weight; a class with no work lends its share.`,
  },
] as const satisfies readonly Variable[];

/**
 * Every class some command type belongs to must have a weight. Checked only when both were read
 * and are valid on their own (the operator commands read the Kafka variables alone).
 */
export function classChecks(
  values: Partial<Record<'COMMAND_CLASSES' | 'CLASS_WEIGHTS', unknown>>,
  invalid: ReadonlySet<string>,
): InvalidField[] {
  const { COMMAND_CLASSES: of, CLASS_WEIGHTS: weights } = values;
  if (of === undefined || weights === undefined) return [];
  if (invalid.has('COMMAND_CLASSES') || invalid.has('CLASS_WEIGHTS')) return [];
  const classes = {
    of: of as Record<CommandType, string>,
    weights: weights as Record<string, number>,
  };
  return classesWithoutWeight(classes).map(({ name, types }) => ({
    path: 'CLASS_WEIGHTS',
    rule: `must give class ${name} a weight (COMMAND_CLASSES puts ${types.join(', ')} in it)`,
  }));
}
