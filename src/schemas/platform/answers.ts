/**
 * What the platform answers, read tolerantly. The spec lists the values of statuses and types,
 * but a platform that grows a new one (a status, an action type) must not fail a command whose
 * call already took effect. `answered(schema)` is `schema` with every enumeration opened: a
 * listed value, or any other string of up to UNLISTED_MAX_LENGTH characters, kept as received.
 * `readAnswer` reads by the spec's own schema first and says which values were not listed.
 */
import { z } from 'zod';
import { compiled } from '../compiled.js';
import { invalidFields } from '../issues.js';

export const UNLISTED_MAX_LENGTH = 64;

/** A value at an enumerated place that the spec does not list, as the platform sent it. */
export interface UnlistedValue {
  /** `signatories[0].actions[1].type`. */
  readonly path: string;
  readonly value: string;
}

/** T with every string literal union (an enumeration) widened to string. */
export type Answered<T> = T extends string
  ? string extends T
    ? T
    : string
  : T extends readonly (infer E)[]
    ? Answered<E>[]
    : T extends object
      ? { [K in keyof T]: Answered<T[K]> }
      : T;

const UnlistedText = z
  .string()
  .max(UNLISTED_MAX_LENGTH)
  .meta({ description: 'A value the spec does not list, kept as the platform sent it' });

/** The spec's schema of each answer schema, to tell listed values from new ones. */
const strictOf = new WeakMap<z.ZodType, z.ZodType>();
/** The opened enumerations, so their places can be found (`isOpenedEnum`). */
const opened = new WeakSet<z.ZodType>();

export function answered<S extends z.ZodType>(schema: S): z.ZodType<Answered<z.output<S>>> {
  const open = opening(schema);
  strictOf.set(open, schema);
  return open as z.ZodType<Answered<z.output<S>>>;
}

export function isOpenedEnum(schema: z.ZodType): boolean {
  return opened.has(schema);
}

/**
 * The same schema, rebuilt with every enumeration opened. Objects, arrays and optional,
 * nullable and default wrappers are rebuilt from their definitions, so their checks (lengths,
 * refinements) stay; any other schema has no enumeration inside it and is kept as it is.
 */
function opening(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodEnum) {
    const open = z.union([schema, UnlistedText]);
    opened.add(open);
    return open;
  }
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(
      Object.entries(schema.shape).map(([key, child]) => [key, opening(child as z.ZodType)]),
    );
    return schema.clone({ ...schema.def, shape });
  }
  if (schema instanceof z.ZodArray) {
    return schema.clone({ ...schema.def, element: opening(schema.element as z.ZodType) });
  }
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodNullable ||
    schema instanceof z.ZodDefault
  ) {
    // The three wrappers' definitions differ only beside innerType, which clone keeps.
    const wrapper = schema as z.ZodOptional<z.ZodType>;
    return wrapper.clone({ ...wrapper.def, innerType: opening(wrapper.def.innerType) });
  }
  return schema;
}

export type AnswerReading<T> =
  | { readonly success: true; readonly data: T; readonly unlisted: readonly UnlistedValue[] }
  | { readonly success: false; readonly error: z.ZodError };

/**
 * Reads by the spec's schema; when that fails only for unlisted values, by the opened one,
 * naming them. A schema that is not an answer schema is simply parsed.
 */
export function readAnswer<S extends z.ZodType>(
  schema: S,
  value: unknown,
): AnswerReading<z.output<S>> {
  const strict = strictOf.get(schema);
  const first = compiled(strict ?? schema).safeParse(value);
  // The spec's schema reads a narrower type than the opened one it stands for.
  if (first.success) return { success: true, data: first.data as z.output<S>, unlisted: [] };
  if (strict === undefined) return { success: false, error: first.error };
  const tolerant = compiled(schema).safeParse(value);
  if (!tolerant.success) return { success: false, error: tolerant.error };
  return { success: true, data: tolerant.data, unlisted: unlistedIn(first.error, value) };
}

/** What the spec's schema refused although the opened one took it: the new values. */
function unlistedIn(error: z.ZodError, value: unknown): UnlistedValue[] {
  const paths = invalidFields(error).map((field) => field.path);
  return error.issues.flatMap((issue, i) => {
    const received = valueAt(value, issue.path);
    if (issue.code !== 'invalid_value' || typeof received !== 'string') return [];
    return [{ path: paths[i] ?? '', value: received }];
  });
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
