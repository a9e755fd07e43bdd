/**
 * The signing positions of a create-contract command name their signatory, action and document
 * by index, because ids exist only once the draft and its documents do. Here the indexes become
 * the platform's ids; every reference that cannot is named in one error.
 */
import { StepUnresolvable } from '../../errors.js';
import type { PlannedStamper } from '../../schemas/messages/commands.js';
import type { Stamper } from '../../schemas/platform/resources.js';
import type { SignatoryIds } from './signatory-ids.js';

export function resolvePositions(
  planned: readonly PlannedStamper[],
  signatories: readonly SignatoryIds[] | undefined,
  documentIds: readonly string[],
): Stamper[] {
  const missing: string[] = [];
  const need = (id: string | null | undefined, what: string): string | undefined => {
    if (id) return id;
    missing.push(what);
    return undefined;
  };
  const stampers = planned.map(({ signatoryIndex, actionIndex, documentIndex, ...where }, i) => {
    const at = `initiate.stampers[${i}]`;
    const signatory = signatories?.[signatoryIndex];
    return {
      ...where,
      signatoryId: need(signatory?.id, `${at}: id of signatory ${signatoryIndex}`),
      actionId:
        actionIndex === undefined
          ? undefined
          : need(signatory?.actionIds[actionIndex], `${at}: id of action ${actionIndex}`),
      documentId:
        documentIndex === undefined
          ? undefined
          : need(documentIds[documentIndex], `${at}: id of document ${documentIndex}`),
    };
  });
  if (missing.length > 0) throw unresolvable(missing, signatories === undefined);
  return stampers;
}

function unresolvable(missing: string[], idsLost: boolean): StepUnresolvable {
  const why = idsLost
    ? "the draft was reconciled after an unknown outcome, so its signatory and action ids are unknown; initiate it with an 'initiate' command"
    : 'the draft did not return them';
  return new StepUnresolvable(`cannot resolve the signing positions: ${why}`, {
    details: { step: 'initiate', missing },
  });
}
