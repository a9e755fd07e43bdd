/**
 * Priority classes (docs/design.md, "Priority classes"): every command type belongs to one class,
 * and the classes share slots, the backlog bound and platform rate tokens by weight, so that a
 * batch job's thousands of reminders cannot keep a person's create-contract waiting.
 */
import { COMMAND_TYPES, type CommandType } from '../schemas/messages/index.js';

export interface CommandClasses {
  /** The class of each command type. */
  readonly of: Readonly<Record<CommandType, string>>;
  /** Each class's weight (a whole number from 1); classes no type belongs to are ignored. */
  readonly weights: Readonly<Record<string, number>>;
}

/** A person waits on these; a batch job sends reminders. */
export const DEFAULT_COMMAND_CLASSES: CommandClasses = {
  of: {
    'create-contract': 'interactive',
    'add-document': 'interactive',
    initiate: 'interactive',
    approve: 'interactive',
    'add-signatory': 'interactive',
    remind: 'bulk',
  },
  weights: { interactive: 4, bulk: 1 },
};

export const MAX_CLASS_WEIGHT = 1_000;

/** The weight of every class some command type belongs to. */
export function classWeights(classes: CommandClasses): Map<string, number> {
  const used = new Set(COMMAND_TYPES.map((type) => classes.of[type]));
  return new Map([...used].map((name) => [name, classes.weights[name] ?? Number.NaN]));
}

/** The classes some type belongs to that have no valid weight, with their types. */
export function classesWithoutWeight(
  classes: CommandClasses,
): Array<{ readonly name: string; readonly types: CommandType[] }> {
  return [...classWeights(classes)]
    .filter(
      ([, weight]) => !(Number.isInteger(weight) && weight >= 1 && weight <= MAX_CLASS_WEIGHT),
    )
    .map(([name]) => ({ name, types: COMMAND_TYPES.filter((type) => classes.of[type] === name) }));
}
