/**
 * Whether a new version of a command or event schema is backward compatible with a released
 * one. One rule for both: what the old schema accepted, the new one still accepts (producers
 * written against the old command schema are not refused; subscribers generated from the new
 * event schema still read the events already in the topic), and every property the old schema
 * declared is still declared (subscribers find what they read). So these break a contract:
 * removing or retyping a field, adding a required field, making an optional one required,
 * narrowing an enum, closing an open object, tightening a limit, changing a pattern or format.
 * Adding an optional field, widening an enum or loosening a limit does not.
 *
 * The comparison is structural over what zod generates (local `$ref`s, `anyOf`/`oneOf`, the
 * usual keywords); anything it cannot show to be compatible counts as a break.
 */
import { isDeepStrictEqual } from 'node:util';
import type { JsonSchema } from './json-schemas.js';

export type Rule =
  | 'removed'
  | 'retyped'
  | 'required-added'
  | 'enum-narrowed'
  | 'closed'
  | 'tightened'
  | 'pattern-changed'
  | 'format-changed'
  | 'union-narrowed';

export interface Incompatibility {
  readonly path: string;
  readonly rule: Rule;
  readonly detail: string;
}

type Schema = JsonSchema;
interface Side {
  readonly root: Schema;
  readonly schema: Schema;
}

/** Every way `after` breaks what `before` promised; empty when it is backward compatible. */
export function incompatibilities(before: Schema, after: Schema): Incompatibility[] {
  return compare({ root: before, schema: before }, { root: after, schema: after }, '');
}

function compare(before: Side, after: Side, path: string): Incompatibility[] {
  const b = { root: before.root, schema: resolve(before) };
  const a = { root: after.root, schema: resolve(after) };
  const beforeBranches = branches(b.schema);
  if (beforeBranches) return beforeBranches.flatMap((branch) => compare(at(b, branch), a, path));
  const afterBranches = branches(a.schema);
  if (afterBranches) return compareToUnion(b, a, afterBranches, path);
  return [
    ...compareTypes(b.schema, a.schema, path),
    ...compareValues(b.schema, a.schema, path),
    ...compareLimits(b.schema, a.schema, path),
    ...compareObjects(b, a, path),
    ...compareItems(b, a, path),
  ];
}

/** A schema that is not a union must fit at least one branch of the new union. */
function compareToUnion(b: Side, a: Side, options: Schema[], path: string): Incompatibility[] {
  const results = options.map((option) => compare(b, at(a, option), path));
  if (results.some((issues) => issues.length === 0)) return [];
  return [issue(path, 'union-narrowed', 'no alternative of the new schema accepts what it did')];
}

function compareTypes(before: Schema, after: Schema, path: string): Incompatibility[] {
  const newTypes = types(after);
  if (!newTypes) return [];
  const oldTypes = types(before);
  const lost = oldTypes
    ? oldTypes.filter(
        (t) => !newTypes.includes(t) && !(t === 'integer' && newTypes.includes('number')),
      )
    : ['any'];
  if (lost.length === 0) return [];
  return [issue(path, 'retyped', `was ${show(oldTypes ?? 'any')}, now ${show(newTypes)}`)];
}

function compareValues(before: Schema, after: Schema, path: string): Incompatibility[] {
  const newValues = values(after);
  if (!newValues) return [];
  const oldValues = values(before);
  const lost = oldValues
    ? oldValues.filter((v) => !newValues.some((n) => isDeepStrictEqual(n, v)))
    : ['any value'];
  if (lost.length === 0) return [];
  return [issue(path, 'enum-narrowed', `no longer accepts ${show(lost)}`)];
}

/** Lower bounds may only go down, upper bounds only up; patterns and formats stay as they were. */
function compareLimits(before: Schema, after: Schema, path: string): Incompatibility[] {
  const found: Incompatibility[] = [];
  for (const key of ['minLength', 'minItems', 'minimum', 'exclusiveMinimum', 'minProperties']) {
    if (num(after[key]) > num(before[key], Number.NEGATIVE_INFINITY)) {
      found.push(issue(path, 'tightened', `${key} ${show(before[key])} -> ${show(after[key])}`));
    }
  }
  for (const key of ['maxLength', 'maxItems', 'maximum', 'exclusiveMaximum', 'maxProperties']) {
    if (num(after[key], Number.POSITIVE_INFINITY) < num(before[key], Number.POSITIVE_INFINITY)) {
      found.push(issue(path, 'tightened', `${key} ${show(before[key])} -> ${show(after[key])}`));
    }
  }
  for (const [key, rule] of [
    ['pattern', 'pattern-changed'],
    ['format', 'format-changed'],
    ['multipleOf', 'tightened'],
    ['not', 'tightened'],
  ] as const) {
    if (after[key] !== undefined && !isDeepStrictEqual(after[key], before[key])) {
      found.push(issue(path, rule, `${key} ${show(before[key])} -> ${show(after[key])}`));
    }
  }
  return found;
}

function compareObjects(b: Side, a: Side, path: string): Incompatibility[] {
  const oldProps = properties(b.schema);
  const newProps = properties(a.schema);
  const found: Incompatibility[] = [];
  for (const [name, oldProp] of Object.entries(oldProps)) {
    const newProp = newProps[name];
    const where = join(path, name);
    if (newProp === undefined) found.push(issue(where, 'removed', 'the property is gone'));
    else found.push(...compare(at(b, oldProp), at(a, newProp), where));
  }
  const wasRequired = new Set(required(b.schema));
  for (const name of required(a.schema).filter((n) => !wasRequired.has(n))) {
    found.push(issue(join(path, name), 'required-added', 'now required'));
  }
  if (a.schema.additionalProperties === false && b.schema.additionalProperties !== false) {
    found.push(issue(path, 'closed', 'no longer accepts properties it does not declare'));
  }
  return found;
}

function compareItems(b: Side, a: Side, path: string): Incompatibility[] {
  const oldItems = b.schema.items;
  const newItems = a.schema.items;
  if (!isSchema(newItems)) return [];
  return compare(at(b, isSchema(oldItems) ? oldItems : {}), at(a, newItems), `${path}[]`);
}

function resolve(side: Side, seen = new Set<string>()): Schema {
  const target = side.schema.$ref;
  if (typeof target !== 'string') return side.schema;
  if (!target.startsWith('#/') || seen.has(target)) {
    throw new Error(`cannot follow $ref ${target}: only local, acyclic references`);
  }
  let node: unknown = side.root;
  for (const part of target.slice(2).split('/')) node = (node as Schema | undefined)?.[part];
  if (!isSchema(node)) throw new Error(`$ref ${target} points at nothing`);
  seen.add(target);
  return resolve({ root: side.root, schema: node }, seen);
}

const at = (side: Side, schema: Schema): Side => ({ root: side.root, schema });
const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const branches = (schema: Schema) => (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
const properties = (schema: Schema) => (schema.properties ?? {}) as Record<string, Schema>;
const required = (schema: Schema) => (schema.required ?? []) as string[];
const num = (value: unknown, absent = Number.NEGATIVE_INFINITY) =>
  typeof value === 'number' ? value : absent;
const join = (path: string, name: string) => (path ? `${path}.${name}` : name);
const show = (value: unknown) => JSON.stringify(value);
const issue = (path: string, rule: Rule, detail: string): Incompatibility => ({
  path: path || '(root)',
  rule,
  detail,
});

function types(schema: Schema): string[] | undefined {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? (type as string[]) : undefined;
}

function values(schema: Schema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  return 'const' in schema ? [schema.const] : undefined;
}
