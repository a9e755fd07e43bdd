/**
 * What a business category decides about a new contract (section 1): whether its console
 * configuration is sound (1302), the subject when none is given, and the default expiry.
 */
import type { Directory } from '../directory.js';
import type { CategoryFixture } from '../fixtures.js';
import { refuse } from '../refusal.js';

const DAY_MS = 86_400_000;

/** Models console data gone stale: a preset operator who left, a preset seal that is gone. */
export function checkCategoryConfig(category: CategoryFixture, directory: Directory): void {
  const broken = (why: string) =>
    refuse('1302', `category "${category.name}" is misconfigured: ${why}`);
  for (const action of category.initiatorActions ?? []) {
    for (const user of action.operators ?? []) {
      if (!directory.isActiveEmployee(user))
        broken(`operator ${user.contact} is not an active employee`);
    }
  }
  const presetActions = [
    ...(category.initiatorActions ?? []),
    ...(category.presetSignatories ?? []).flatMap((s) => s.actions ?? []),
  ];
  for (const action of presetActions) {
    if (action.sealId && !directory.seal(action.sealId))
      broken(`seal ${action.sealId} does not exist`);
  }
}

export interface SubjectInput {
  readonly subject?: string | undefined;
  readonly bizId?: string | undefined;
  readonly sn: string;
  readonly tenantName: string;
}

/** "Must be passed when the category has no subject generation rule." */
export function subjectOf(category: CategoryFixture, input: SubjectInput): string {
  if (input.subject?.trim()) return input.subject;
  if (!category.subjectRule) {
    refuse('11990005', `subject is required: category "${category.name}" has no subject rule`);
  }
  const values: Record<string, string> = {
    bizId: input.bizId ?? '',
    sn: input.sn,
    tenantName: input.tenantName,
  };
  return category.subjectRule.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? '');
}

export function defaultExpiry(category: CategoryFixture, now: number): number {
  return now + category.expireDays * DAY_MS;
}
