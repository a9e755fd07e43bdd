/**
 * Places in a schema's data, found from the schema itself: where a `LongId` sits (written as a
 * bare number), where an enumeration sits (read tolerantly). Deriving them keeps the schema the
 * one statement of each field's type. Paths are those of `writeJson`: keys joined by dots, `*`
 * for every element of an array.
 */
import { z } from 'zod';
import { childPath } from './json-text.js';
import { LongId } from './primitives.js';

/**
 * Every path at which `matches` holds for the schema found there, not looking inside a match.
 * Objects, arrays, optional, nullable and default wrappers, pipes (by their input side) and
 * unions are looked into; any other schema is a leaf.
 */
export function pathsWhere(
  schema: z.ZodType,
  matches: (schema: z.ZodType) => boolean,
  path = '',
): string[] {
  if (matches(schema)) return [path];
  const inner = (child: z.ZodType, at = path) => pathsWhere(child, matches, at);
  if (schema instanceof z.ZodObject) {
    return Object.entries(schema.shape).flatMap(([key, child]) =>
      inner(child as z.ZodType, childPath(path, key)),
    );
  }
  if (schema instanceof z.ZodArray) return inner(schema.element as z.ZodType, childPath(path, '*'));
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodNullable ||
    schema instanceof z.ZodDefault
  ) {
    return inner(schema.def.innerType as z.ZodType);
  }
  if (schema instanceof z.ZodPipe) return inner(schema.in as z.ZodType);
  if (schema instanceof z.ZodUnion) {
    return [...new Set(schema.options.flatMap((option) => inner(option as z.ZodType)))];
  }
  return [];
}

const longIdPathsOf = new WeakMap<z.ZodType, ReadonlySet<string>>();

/** Where `schema` holds a `LongId`, below `prefix`; computed once per schema. */
export function longIdPaths(schema: z.ZodType, prefix = ''): ReadonlySet<string> {
  let paths = longIdPathsOf.get(schema);
  if (paths === undefined) {
    paths = new Set(pathsWhere(schema, (s) => s === LongId));
    longIdPathsOf.set(schema, paths);
  }
  if (prefix === '') return paths;
  return new Set([...paths].map((path) => (path === '' ? prefix : childPath(prefix, path))));
}
