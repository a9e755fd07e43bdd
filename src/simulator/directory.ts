/**
 * Look-ups over the fixtures. A class because seal statuses change at run time (the admin API
 * freezes a seal between draft and initiation); everything else is read-only.
 */
import type { Category, User } from '../schemas/platform/resources.js';
import type {
  CategoryFixture,
  Credential,
  Employee,
  Fixtures,
  Seal,
  SealStatus,
  TemplateFixture,
} from './fixtures.js';
import { refuse } from './refusal.js';

const CONTACT_FIELD = {
  MOBILE: 'mobile',
  EMAIL: 'email',
  EMPLOYEEID: 'employeeId',
  NUMBER: 'number',
} as const;

export class Directory {
  readonly companyName: string;
  readonly #tenants: ReadonlySet<string>;
  readonly #credentials: ReadonlyMap<string, Credential>;
  readonly #templates: ReadonlyMap<string, TemplateFixture>;
  readonly #sealStatus = new Map<string, SealStatus>();

  constructor(readonly fixtures: Fixtures) {
    this.companyName = fixtures.company.name;
    this.#tenants = new Set([this.companyName, ...fixtures.subsidiaries.map((s) => s.name)]);
    this.#credentials = new Map(fixtures.credentials.map((c) => [c.appToken, c]));
    this.#templates = new Map(fixtures.templates.map((t) => [t.id, t]));
    this.resetSeals();
  }

  credential(appToken: string): Credential | undefined {
    return this.#credentials.get(appToken);
  }

  /** The caller's own company or one of its subsidiaries. */
  isOwnTenant(name: string): boolean {
    return this.#tenants.has(name);
  }

  /** The employee a User names by its contact, whatever their status. */
  employee(user: User | undefined): Employee | undefined {
    if (!user?.contact || !user.contactType) return undefined;
    const field = CONTACT_FIELD[user.contactType];
    return this.fixtures.employees.find((e) => e[field] === user.contact);
  }

  isActiveEmployee(user: User | undefined): boolean {
    return this.employee(user)?.status === 'ACTIVE';
  }

  seal(id: string): (Seal & { status: SealStatus }) | undefined {
    const seal = this.fixtures.seals.find((s) => s.id === id);
    const status = this.#sealStatus.get(id);
    return seal && status ? { ...seal, status } : undefined;
  }

  setSealStatus(id: string, status: SealStatus): boolean {
    if (!this.#sealStatus.has(id)) return false;
    this.#sealStatus.set(id, status);
    return true;
  }

  resetSeals(): void {
    for (const seal of this.fixtures.seals) this.#sealStatus.set(seal.id, seal.status);
  }

  template(id: string): TemplateFixture | undefined {
    return this.#templates.get(id);
  }

  /** By id, else by a name that must identify exactly one category; the default when absent. */
  category(ref: Category | undefined): CategoryFixture {
    const all = this.fixtures.categories;
    if (!ref) return all.find((c) => c.default) ?? refuse('21990001', 'no default category');
    if (ref.id) {
      return (
        all.find((c) => c.id === ref.id) ?? refuse('11990005', `category ${ref.id} does not exist`)
      );
    }
    const named = all.filter((c) => c.name === ref.name);
    const [only] = named;
    if (only && named.length === 1) return only;
    return refuse('11990005', `category name "${ref.name}" matches ${named.length} categories`);
  }
}
