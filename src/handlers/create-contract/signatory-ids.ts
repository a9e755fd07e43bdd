/**
 * The platform's ids for the command's signatories. The draft may list its signatories in
 * another order than the command (it sorts them by serialNo), so each is found by who it is:
 * type and name, and the receiver's contact when both sides give one.
 */
import type { Answered } from '../../schemas/platform/answers.js';
import type { Signatory } from '../../schemas/platform/resources.js';

/** As requested, or as the draft returned it (where a type may be one the spec does not list). */
type Party = Answered<Signatory>;

export interface SignatoryIds {
  /** null where the draft did not return an id (JSON keeps null, not undefined, in arrays). */
  readonly id: string | null;
  /** The ids of the signatory's actions in the draft, in its order. */
  readonly actionIds: Array<string | null>;
}

/** One entry per requested signatory, in the command's order. */
export function signatoryIds(
  requested: readonly Party[],
  returned: readonly Party[],
): SignatoryIds[] {
  const unmatched = [...returned];
  return requested.map((wanted) => {
    const at = unmatched.findIndex((candidate) => sameParty(candidate, wanted));
    const [match] = at >= 0 ? unmatched.splice(at, 1) : [];
    return {
      id: match?.id ?? null,
      actionIds: (match?.actions ?? []).map((action) => action.id ?? null),
    };
  });
}

function sameParty(a: Party, b: Party): boolean {
  const contactA = a.receiver?.contact?.trim();
  const contactB = b.receiver?.contact?.trim();
  return (
    a.tenantType === b.tenantType &&
    (a.tenantName?.trim() ?? '') === (b.tenantName?.trim() ?? '') &&
    (!contactA || !contactB || contactA === contactB)
  );
}
