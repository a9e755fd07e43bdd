/**
 * The signatories of a new draft: present (1113), distinct (1102), matching the category's
 * preset (1301), with the category's flows where it presets them, and every flow valid.
 */
import type { Signatory } from '../../schemas/platform/resources.js';
import type { CategoryFixture } from '../fixtures.js';
import { refuse } from '../refusal.js';
import type { SignatoryRecord } from '../state/model.js';
import type { OperationContext } from './context.js';
import { checkFlow, checkOperators, checkSeals } from './flow-rules.js';
import { newSignatory } from './signatory-records.js';

export function draftSignatories(
  requested: readonly Signatory[] | undefined,
  category: CategoryFixture,
  owner: string,
  ctx: OperationContext,
): SignatoryRecord[] {
  if (!requested?.length) refuse('1113', 'a contract needs at least one signatory');
  checkDistinct(requested);
  const isInitiator = (s: Signatory) => s.tenantType === 'COMPANY' && s.tenantName === owner;
  checkPreset(
    requested.filter((s) => !isInitiator(s)),
    category,
  );
  const effective = withCategoryFlows(requested, category, isInitiator);
  for (const signatory of effective) {
    checkFlow(signatory);
    checkOperators(ctx.directory, signatory);
    checkSeals(ctx.directory, signatory.actions ?? []);
  }
  const records = effective.map((s, i) => newSignatory(s, i + 1, isInitiator(s), ctx.ids));
  // Stable: signatories sharing a serialNo keep their request order.
  return records.sort((a, b) => a.serialNo - b.serialNo);
}

function checkDistinct(signatories: readonly Signatory[]): void {
  const seen = new Set<string>();
  for (const signatory of signatories) {
    if (signatory.tenantType === 'COMPANY' && !signatory.tenantName?.trim()) {
      refuse('11990005', 'a company signatory needs its tenantName');
    }
    const key = identity(signatory);
    if (seen.has(key)) refuse('1102', `signatory ${key} appears more than once`);
    seen.add(key);
  }
}

/** A company is its name; an individual is the receiver's contact (or the name without one). */
function identity(s: Signatory): string {
  if (s.tenantType === 'COMPANY') return `COMPANY "${s.tenantName}"`;
  const contact = s.receiver?.contact;
  return contact
    ? `PERSONAL ${s.receiver?.contactType} "${contact}"`
    : `PERSONAL "${s.tenantName}"`;
}

/** "Must match the preset ones exactly in count, type and order" (the initiator excepted). */
function checkPreset(receivers: readonly Signatory[], category: CategoryFixture): void {
  const preset = category.presetSignatories;
  if (!preset) return;
  const wanted = preset.map((p) => p.tenantType).join(', ');
  const given = receivers.map((r) => r.tenantType).join(', ');
  if (wanted !== given) {
    refuse(
      '1301',
      `category "${category.name}" presets signatories [${wanted}], the request has [${given}]`,
    );
  }
}

/** Preset flows replace the requested ones: the initiator's and, position by position, the receivers'. */
function withCategoryFlows(
  requested: readonly Signatory[],
  category: CategoryFixture,
  isInitiator: (s: Signatory) => boolean,
): Signatory[] {
  let receiverIndex = 0;
  return requested.map((signatory) => {
    const preset = isInitiator(signatory)
      ? category.initiatorActions
      : category.presetSignatories?.[receiverIndex++]?.actions;
    return preset ? { ...signatory, actions: preset } : signatory;
  });
}
