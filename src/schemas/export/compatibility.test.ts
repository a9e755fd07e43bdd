import { describe, expect, it } from 'vitest';
import { incompatibilities, type Rule } from './compatibility.js';
import { eventJsonSchema, type JsonSchema, jsonSchemaFiles } from './json-schemas.js';

const object = (properties: Record<string, JsonSchema>, required: string[] = [], extra = {}) => ({
  type: 'object',
  properties,
  required,
  ...extra,
});
const str = { type: 'string' };
const rules = (before: JsonSchema, after: JsonSchema) =>
  incompatibilities(before, after).map((i) => [i.path, i.rule]);

/** Each rule with a breaking change and a harmless one beside it. */
const cases: Array<[string, Rule, JsonSchema, JsonSchema, string]> = [
  ['a field is removed', 'removed', object({ a: str, b: str }), object({ a: str }), 'b'],
  ['a field is retyped', 'retyped', object({ a: str }), object({ a: { type: 'number' } }), 'a'],
  [
    'a required field is added',
    'required-added',
    object({ a: str }, ['a']),
    object({ a: str, b: str }, ['a', 'b']),
    'b',
  ],
  [
    'an optional field becomes required',
    'required-added',
    object({ a: str, b: str }, ['a']),
    object({ a: str, b: str }, ['a', 'b']),
    'b',
  ],
  [
    'an enum is narrowed',
    'enum-narrowed',
    object({ s: { type: 'string', enum: ['A', 'B'] } }),
    object({ s: { type: 'string', enum: ['A'] } }),
    's',
  ],
  [
    'an open object is closed',
    'closed',
    object({ a: str }),
    object({ a: str }, [], { additionalProperties: false }),
    '(root)',
  ],
  [
    'a maximum length is lowered',
    'tightened',
    object({ a: { type: 'string', maxLength: 200 } }),
    object({ a: { type: 'string', maxLength: 100 } }),
    'a',
  ],
  [
    'a minimum is raised',
    'tightened',
    object({ n: { type: 'integer', minimum: 0 } }),
    object({ n: { type: 'integer', minimum: 1 } }),
    'n',
  ],
  [
    'a pattern is added',
    'pattern-changed',
    object({ a: str }),
    object({ a: { type: 'string', pattern: '^\\d+$' } }),
    'a',
  ],
  [
    'a format is added',
    'format-changed',
    object({ a: str }),
    object({ a: { type: 'string', format: 'uri' } }),
    'a',
  ],
  [
    'an array item loses a field',
    'removed',
    object({ list: { type: 'array', items: object({ id: str, x: str }) } }),
    object({ list: { type: 'array', items: object({ id: str }) } }),
    'list[].x',
  ],
  [
    'a union loses the alternative a value needed',
    'union-narrowed',
    object({ id: { anyOf: [str, { type: 'integer' }] } }),
    object({ id: { anyOf: [str, { type: 'boolean' }] } }),
    'id',
  ],
  [
    'a union becomes one of its alternatives',
    'retyped',
    object({ id: { anyOf: [str, { type: 'integer' }] } }),
    object({ id: str }),
    'id',
  ],
];

describe('incompatibilities', () => {
  it.each(cases)('when %s, then it is %s', (_, rule, before, after, path) => {
    expect(rules(before, after)).toEqual([[path, rule]]);
  });

  it.each([
    ['an optional field is added', object({ a: str }), object({ a: str, b: str })],
    [
      'an optional field is added to a closed object',
      object({ a: str }, [], { additionalProperties: false }),
      object({ a: str, b: str }, [], { additionalProperties: false }),
    ],
    [
      'an enum is widened',
      object({ s: { type: 'string', enum: ['A'] } }),
      object({ s: { type: 'string', enum: ['A', 'B'] } }),
    ],
    ['a required field becomes optional', object({ a: str }, ['a']), object({ a: str })],
    [
      'a limit is loosened',
      object({ a: { type: 'string', maxLength: 100, minLength: 2 } }),
      object({ a: { type: 'string', maxLength: 200, minLength: 1 } }),
    ],
    [
      'an integer becomes a number',
      object({ n: { type: 'integer' } }),
      object({ n: { type: 'number' } }),
    ],
    [
      'a closed object is opened',
      object({ a: str }, [], { additionalProperties: false }),
      object({ a: str }),
    ],
    [
      'a type gains an alternative',
      object({ id: str }),
      object({ id: { anyOf: [str, { type: 'integer' }] } }),
    ],
    [
      'only titles, descriptions and examples change',
      object({ a: { ...str, description: 'old' } }),
      { ...object({ a: { ...str, description: 'new', title: 'A' } }), examples: [{ a: 'x' }] },
    ],
  ])('when %s, then nothing breaks', (_, before, after) => {
    expect(incompatibilities(before, after)).toEqual([]);
  });

  it('when a field is reached through local $refs, then its change is found at its path', () => {
    const before = {
      $defs: { Party: object({ id: str, name: str }) },
      ...object({ p: { $ref: '#/$defs/Party' } }),
    };
    const after = {
      definitions: { Party: object({ id: str }) },
      ...object({ p: { $ref: '#/definitions/Party' } }),
    };
    expect(rules(before, after)).toEqual([['p.name', 'removed']]);
  });

  it('when a $ref points outside the document, then the check refuses to guess', () => {
    expect(() =>
      incompatibilities(object({ a: str }), object({ a: { $ref: 'other.json' } })),
    ).toThrow(/cannot follow \$ref other\.json/);
  });
});

describe('incompatibilities of the generated schemas', () => {
  const files = [...jsonSchemaFiles()];

  it.each(files)('when %s is unchanged, then nothing breaks', (_, schema) => {
    expect(incompatibilities(schema, schema)).toEqual([]);
  });

  it('when a field of a real event is dropped, then the check names it', () => {
    const before = eventJsonSchema('signingbridge.draft.created');
    const properties = { ...(before.properties as Record<string, JsonSchema>) };
    delete properties.signatories;
    expect(rules(before, { ...before, properties })).toContainEqual(['signatories', 'removed']);
  });
});
