/** Turning a requested signatory into the record the simulator keeps, with fresh ids. */
import type { AddSignatorySignatory, Signatory } from '../../schemas/platform/resources.js';
import type { IdSequence } from '../ids.js';
import type { ActionRecord, SignatoryRecord } from '../state/model.js';

type RequestedSignatory = Signatory | AddSignatorySignatory;
type RequestedAction = NonNullable<RequestedSignatory['actions']>[number];

export function newSignatory(
  input: RequestedSignatory,
  serialNo: number,
  initiator: boolean,
  ids: IdSequence,
): SignatoryRecord {
  return {
    id: ids.next(),
    tenantType: input.tenantType,
    tenantName: input.tenantName,
    status: 'DRAFT',
    receiver: input.receiver,
    serialNo: input.serialNo ?? serialNo,
    initiator,
    actions: newActions(input.actions ?? [], ids),
    attachments: input.attachments?.map((a) => ({ ...a, id: ids.next() })),
    userAuthInfo: input.userAuthInfo,
  };
}

/** In request order; serialNo (default: the position, from 0) decides the running order. */
function newActions(actions: readonly RequestedAction[], ids: IdSequence): ActionRecord[] {
  return actions.map((a, i) => ({
    id: ids.next(),
    type: a.type,
    status: 'INIT' as const,
    name: a.name,
    serialNo: a.serialNo ?? i,
    sealId: a.sealId,
    operators: a.operators,
    corpSealIds: a.corpSealIds,
    corpOperators: a.corpOperators,
  }));
}
