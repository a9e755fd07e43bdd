/**
 * What subscribers get of the platform's answers: ids, statuses, titles and order, never
 * personal data. The platform answers a draft or a signatory with its receivers' contacts,
 * names and `userAuthInfo` (identity card, bank card, bank-reserved mobile): none of that is
 * copied. The event schemas list the fields kept; encoding drops anything else as well.
 */

import type { z } from 'zod';
import type { AddedSignatory, DraftSignatory } from '../schemas/messages/events.js';
import type { AddSignatoryResult, CreateDraftResult } from '../schemas/platform/operations.js';

type PlatformSignatory = NonNullable<z.infer<typeof CreateDraftResult>['signatories']>[number];
type PlatformAddedSignatory = z.infer<typeof AddSignatoryResult>;
type PlatformAction = NonNullable<(PlatformSignatory | PlatformAddedSignatory)['actions']>[number];

/** The draft as the platform answered it; `ids` are the command's signatories' ids, in its order. */
export function draftView(
  contract: z.infer<typeof CreateDraftResult>,
  ids: ReadonlyArray<{ readonly id: string | null }>,
) {
  const { status, subject, sn, expireTime, category } = contract;
  const signatories = (contract.signatories ?? []).map((signatory): DraftSignatory => {
    const index = ids.findIndex((known) => known.id !== null && known.id === signatory.id);
    return {
      ...partyView(signatory),
      tenantType: signatory.tenantType,
      actions: (signatory.actions ?? []).map(actionView),
      ...(index >= 0 ? { index } : {}),
    };
  });
  const categoryView = category && { id: category.id, name: category.name };
  return { status, subject, sn, expireTime, category: categoryView, signatories };
}

export function addedSignatoryView(signatory: PlatformAddedSignatory): AddedSignatory {
  return {
    ...partyView(signatory),
    tenantType: signatory.tenantType,
    actions: (signatory.actions ?? []).map(actionView),
  };
}

function partyView(signatory: PlatformSignatory | PlatformAddedSignatory) {
  const { id, tenantType, status, serialNo } = signatory;
  // An individual's tenantName is their own name; a company's is not personal data.
  const tenantName = tenantType === 'COMPANY' ? signatory.tenantName : undefined;
  return { id, tenantName, status, serialNo };
}

type ActionView<A extends PlatformAction> = Pick<A, 'id' | 'type' | 'status' | 'name' | 'serialNo'>;

function actionView<A extends PlatformAction>(action: A): ActionView<A> {
  const { id, type, status, name, serialNo } = action;
  return { id, type, status, name, serialNo };
}
