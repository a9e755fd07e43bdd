/**
 * A compiled schema must be its schema: the same verdict, the same data (keys in the same order)
 * and the same issues, for valid values and for values one to three edits away from them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { compiled } from './compiled.js';
import { FileContent } from './messages/commands.js';
import { EVENTS } from './messages/events.js';
import { COMMAND_EXAMPLES, EVENT_EXAMPLES } from './messages/examples.js';
import { COMMANDS } from './messages/topics.js';
import { OPERATIONS } from './platform/operations.js';
import { Contract } from './platform/resources.js';

type Json = unknown;

const { payload: create } = COMMAND_EXAMPLES['create-contract'];
const address = { bizId: 'order-4711', tenantName: 'Demo Trading Co., Ltd.' };
const contractId = '3141592653589793239';
const draft = {
  ...create.contract,
  id: contractId,
  status: 'DRAFT',
  expireTime: '2026-12-26 19:30:00',
  signatories: [
    {
      id: '3141592653589793240',
      tenantType: 'COMPANY',
      status: 'DRAFT',
      complateTime: '2026-11-26 10:00:00',
      actions: [{ id: '3141592653589793242', type: 'COMPANY', corpSealIds: ['2001', 2002] }],
    },
  ],
  documents: [{ id: '3141592653589793243', title: 'NDA', createTime: '2026-11-26 10:00:00' }],
};

/** Each schema every command passes through, its events' data included, with values it accepts. */
const CASES: ReadonlyArray<readonly [string, z.ZodType, readonly Json[]]> = [
  ...Object.entries(COMMANDS).map(
    ([type, { schema }]) =>
      [type, schema, [COMMAND_EXAMPLES[type as keyof typeof COMMANDS]]] as const,
  ),
  ['createDraft request', OPERATIONS.createDraft.request, [{ ...create.contract, ...address }]],
  [
    'addDocumentByTemplate request',
    OPERATIONS.addDocumentByTemplate.request,
    [{ contractId, title: 'NDA', templateId: 'tpl-nda', templateParams: [{ name: 'a' }] }],
  ],
  [
    'initiateContract request',
    OPERATIONS.initiateContract.request,
    [{ ...COMMAND_EXAMPLES.initiate.payload, contractId }],
  ],
  [
    'approveContract request',
    OPERATIONS.approveContract.request,
    [{ ...COMMAND_EXAMPLES.approve.payload, ...address }],
  ],
  [
    'remindSignatories request',
    OPERATIONS.remindSignatories.request,
    [
      { onlySigning: false, ...address },
      { contractId, signatoryId: '1' },
    ],
  ],
  [
    'addSignatory request',
    OPERATIONS.addSignatory.request,
    [{ ...COMMAND_EXAMPLES['add-signatory'].payload, contractId }],
  ],
  ['createDraft result, as the spec lists', Contract, [draft]],
  ['createDraft result', OPERATIONS.createDraft.result, [draft, { ...draft, status: 'ARCHIVED' }]],
  ['addDocument result', OPERATIONS.addDocumentByTemplate.result, [{ documentId: '1' }]],
  ['remindSignatories result', OPERATIONS.remindSignatories.result, [undefined, {}]],
  ...Object.entries(EVENTS).map(
    ([type, { data }]) =>
      [`${type} data`, data, [EVENT_EXAMPLES[type as keyof typeof EVENTS]]] as const,
  ),
];

/** The places in a value that an edit can change: every key and element, nested. */
function pathsIn(value: Json, at: readonly PropertyKey[] = []): PropertyKey[][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value).flatMap((key) => {
    const path = [...at, Array.isArray(value) ? Number(key) : key];
    return [path, ...pathsIn((value as Record<string, Json>)[key], path)];
  });
}

/** What an edit puts in place of a value: anything JSON, or a near miss of a string rule. */
const replacement = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    '',
    ' ',
    ' padded ',
    'x'.repeat(201),
    'not a url',
    '2026-02-30 10:00:00',
    -1,
    1.5,
  ),
);

type Edit = { kind: 'set'; value: Json } | { kind: 'delete' } | { kind: 'add'; key: string };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  replacement.map((value) => ({ kind: 'set' as const, value })),
  fc.constant({ kind: 'delete' as const }),
  fc
    .constantFrom('unknown', 'url', 'base64', 'actionIndex')
    .map((key) => ({ kind: 'add' as const, key })),
);

function applied(value: Json, path: readonly PropertyKey[], change: Edit): Json {
  const copy = structuredClone(value);
  if (path.length === 0) return change.kind === 'set' ? change.value : copy;
  let parent = copy as Record<PropertyKey, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<PropertyKey, Json>;
  const last = path[path.length - 1] as PropertyKey;
  if (change.kind === 'set') parent[last] = change.value;
  else if (change.kind === 'delete') delete parent[last];
  else if (typeof parent[last] === 'object' && parent[last] !== null) {
    (parent[last] as Record<string, Json>)[change.key] = 'x';
  }
  return copy;
}

/** A valid value with one to three edits, each at a place the value had before it. */
function edited(valid: readonly Json[]): fc.Arbitrary<Json> {
  return fc
    .tuple(
      fc.constantFrom(...valid),
      fc.array(fc.tuple(fc.nat(), edit), { minLength: 1, maxLength: 3 }),
    )
    .map(([value, edits]) =>
      edits.reduce<Json>((current, [n, change]) => {
        const paths = [[], ...pathsIn(current)];
        return applied(current, paths[n % paths.length] as PropertyKey[], change);
      }, value),
    );
}

/** Asserts the same verdict as zod's, then the same data or the same issues; returns the verdict. */
function expectSameParse(schema: z.ZodType, value: Json): 'taken' | 'refused' {
  const expected = schema.safeParse(structuredClone(value));
  const actual = compiled(schema).safeParse(structuredClone(value));
  expect(actual.success).toBe(expected.success);
  if (expected.success) {
    expect(actual.data).toStrictEqual(expected.data);
    expect(JSON.stringify(actual.data)).toBe(JSON.stringify(expected.data));
    return 'taken';
  }
  expect(actual.error?.issues).toStrictEqual(expected.error.issues);
  return 'refused';
}

describe('compiled', () => {
  it.each(CASES)('%s: its valid values parse compiled to the same data', (_, schema, valid) => {
    for (const value of valid) {
      expect(schema.safeParse(value).success).toBe(true);
      expectSameParse(schema, value);
    }
  });

  it.each(CASES)(
    '%s: values edited from valid ones get the same verdict, data and issues',
    (name, schema, valid) => {
      const numRuns = 300;
      const verdicts = { taken: 0, refused: 0 };
      fc.assert(
        fc.property(edited(valid), (value) => {
          verdicts[expectSameParse(schema, value)]++;
        }),
        { numRuns },
      );
      expect(verdicts.taken, name).toBeGreaterThan(numRuns / 10);
      // Issues to compare, but from a schema that takes any value (a result the bridge ignores).
      if (schema.safeParse(Symbol('any value')).success) expect(verdicts.refused).toBe(0);
      else expect(verdicts.refused, name).toBeGreaterThan(numRuns / 10);
    },
  );

  it("a file's url and base64 get the same verdicts compiled as in zod's own checks", () => {
    const url = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.webUrl().map((u) => u.replace(/^https?/, 'ftp')),
      fc.webUrl().map((u) => u.replace('://', ':/')),
      fc.webUrl().map((u) => ` ${u}`),
      fc.constantFrom(
        'https://',
        'http://a',
        'HTTPS://A.EXAMPLE',
        'https://a b.example',
        'mailto:x@y',
      ),
      fc.string(),
    );
    const base64 = fc.oneof(
      fc.base64String(),
      fc.string(),
      fc.base64String().map((b) => `${b}=`),
    );
    const file = fc.oneof(
      url.map((value) => ({ url: value })),
      base64.map((value) => ({ base64: value })),
    );
    const numRuns = 2000;
    const verdicts = { taken: 0, refused: 0 };
    fc.assert(
      fc.property(file, (value) => {
        verdicts[expectSameParse(FileContent, value)]++;
      }),
      { numRuns },
    );
    expect(verdicts.taken).toBeGreaterThan(numRuns / 10);
    expect(verdicts.refused).toBeGreaterThan(numRuns / 10);
    // 2,000 values parsed twice: 2 to 3 s alone, more beside the integration files.
  }, 30_000);

  it('makes one compiled copy per schema, not the schema itself', () => {
    const { schema } = COMMANDS.remind;
    expect(compiled(schema)).toBe(compiled(schema));
    expect(compiled(schema)).not.toBe(schema);
  });
});
