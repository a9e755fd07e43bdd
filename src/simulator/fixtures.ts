/**
 * The world the simulator pretends to be: the caller's company and subsidiaries, employees,
 * seals, business categories (configured in the platform's console, outside the interface),
 * file templates and app credentials. Loaded from JSON and validated here, once.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigInvalid, type InvalidField } from '../errors.js';
import { NonEmptyString, TemplateParamType, TenantType } from '../schemas/platform/primitives.js';
import { Action } from '../schemas/platform/resources.js';

const Tenant = z.object({ name: NonEmptyString });

const Employee = z.object({
  name: NonEmptyString,
  mobile: z.string().optional(),
  email: z.string().optional(),
  employeeId: z.string().optional(),
  number: z.string().optional(),
  /** LEFT: still on record (a category may name them), but no longer a valid operator. */
  status: z.enum(['ACTIVE', 'LEFT']).default('ACTIVE'),
});

export const SealStatus = z.enum(['NORMAL', 'FROZEN', 'DELETED']);

const Seal = z.object({
  id: NonEmptyString,
  name: NonEmptyString,
  owner: NonEmptyString.optional(),
  status: SealStatus.default('NORMAL'),
});

/** A flow node as the console configures it; ids and statuses exist only in a contract. */
const PresetAction = Action.omit({ id: true, status: true, complateTime: true });

const PresetSignatory = z.object({
  tenantType: TenantType,
  actions: z.array(PresetAction).optional(),
});

const Category = z.object({
  id: NonEmptyString,
  name: NonEmptyString,
  /** The category used when a request names none; exactly one category has it. */
  default: z.boolean().default(false),
  /** Receivers (the initiator excepted) a request must match in count, type and order. */
  presetSignatories: z.array(PresetSignatory).optional(),
  /** The initiator's preset flow; without it the request must carry the initiator's actions. */
  initiatorActions: z.array(PresetAction).optional(),
  /** Whether signatories may be added after initiation (add-signatory, else 11011304). */
  continuedSending: z.boolean().default(false),
  /** Generates the subject from `{{bizId}}`, `{{sn}}` and `{{tenantName}}` when none is given. */
  subjectRule: NonEmptyString.optional(),
  /** Default expiry, counted from draft creation. */
  expireDays: z.number().int().positive().default(30),
  /** Template ids whose documents every draft of the category starts with. */
  templates: z.array(NonEmptyString).default([]),
});

const TemplateParamDef = z.object({
  name: NonEmptyString,
  required: z.boolean().default(false),
  /** Who fills it: only INITIATOR parameters must be filled before initiation. */
  owner: z.enum(['INITIATOR', 'SIGNATORY']).default('INITIATOR'),
  type: TemplateParamType.default('text'),
});

const Template = z.object({
  id: NonEmptyString,
  title: NonEmptyString,
  params: z.array(TemplateParamDef).default([]),
  /** Text of each page with `{{name}}` placeholders. */
  pages: z.array(z.string()).min(1),
});

const Credential = z.object({
  appToken: NonEmptyString,
  appSecret: NonEmptyString,
  name: z.string().optional(),
});

export const Fixtures = z
  .object({
    company: Tenant,
    subsidiaries: z.array(Tenant).default([]),
    employees: z.array(Employee).default([]),
    seals: z.array(Seal).default([]),
    categories: z.array(Category).min(1),
    templates: z.array(Template).default([]),
    credentials: z.array(Credential).min(1),
  })
  .superRefine(checkReferences);

export type Fixtures = z.output<typeof Fixtures>;
export type FixturesInput = z.input<typeof Fixtures>;
export type Employee = Fixtures['employees'][number];
export type Seal = Fixtures['seals'][number];
export type SealStatus = z.output<typeof SealStatus>;
export type CategoryFixture = Fixtures['categories'][number];
export type PresetAction = z.output<typeof PresetAction>;
export type TemplateFixture = Fixtures['templates'][number];
export type Credential = Fixtures['credentials'][number];

/**
 * Identity and cross-references only. A preset operator who is unknown or has left is
 * deliberately allowed: it is how a fixture models a faulty category (answered with 1302).
 */
function checkReferences(f: Fixtures, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path, message });
  flagRepeats(f.seals, (s) => s.id, 'seals', 'id', issue);
  flagRepeats(f.categories, (c) => c.id, 'categories', 'id', issue);
  flagRepeats(f.templates, (t) => t.id, 'templates', 'id', issue);
  flagRepeats(f.credentials, (c) => c.appToken, 'credentials', 'appToken', issue);
  const defaults = f.categories.filter((c) => c.default).length;
  if (defaults !== 1)
    issue(['categories'], `exactly one category needs "default": true, found ${defaults}`);
  const templateIds = new Set(f.templates.map((t) => t.id));
  f.categories.forEach((category, i) => {
    category.templates.forEach((id, j) => {
      if (!templateIds.has(id)) issue(['categories', i, 'templates', j], `no template "${id}"`);
    });
  });
}

function flagRepeats<T>(
  items: T[],
  key: (item: T) => string,
  list: string,
  field: string,
  issue: (path: (string | number)[], message: string) => void,
): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const value = key(item);
    if (seen.has(value)) issue([list, i, field], `"${value}" is repeated`);
    seen.add(value);
  });
}

/** Validates fixtures given as data; `source` names them in the error. */
export function parseFixtures(value: unknown, source = 'fixtures'): Fixtures {
  const parsed = Fixtures.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields: InvalidField[] = parsed.error.issues.map((i) => ({
    path: i.path.join('.') || '(root)',
    rule: i.message,
  }));
  throw invalid(source, fields);
}

export async function loadFixtures(path: string): Promise<Fixtures> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (cause) {
    throw invalid(path, [{ path: '(file)', rule: (cause as Error).message }], cause);
  }
  return parseFixtures(value, path);
}

function invalid(source: string, fields: InvalidField[], cause?: unknown): ConfigInvalid {
  const list = fields.map((f) => `  ${f.path}: ${f.rule}`).join('\n');
  return new ConfigInvalid(`simulator fixtures ${source} are invalid:\n${list}`, {
    details: { variables: fields },
    cause,
  });
}
