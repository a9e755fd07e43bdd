/**
 * `/v2/contract/employeeaudit`: an employee of the signatory named by tenantName (default: the
 * caller's company) approves or rejects, when that signatory's current node is an AUDIT node.
 */
import { refuse } from '../refusal.js';
import type { ContractRecord, SignatoryRecord } from '../state/model.js';
import { currentAction, finishCurrentAction, reject } from '../state/transitions.js';
import type { OperationHandler } from './context.js';
import { CONTRACT_NOT_EXIST, findContract } from './contract-ref.js';

export const approveContract: OperationHandler<'approveContract'> = (request, ctx) => {
  const contract = findContract(ctx, request, {
    notFound: CONTRACT_NOT_EXIST,
    tenantIsOwner: false,
  });
  const name = request.tenantName ?? ctx.directory.companyName;
  const signatory =
    contract.signatories.find((s) => s.tenantType === 'COMPANY' && s.tenantName === name) ??
    refuse('14990002', `"${name}" is not a signatory of contract ${contract.id}`);
  approveTurn(contract, signatory, request, ctx.clock.timestamp());
  return { contract };
};

export interface Verdict {
  readonly pass: boolean;
  readonly comment?: string | undefined;
}

/** Records the verdict on the signatory's current AUDIT node: passed, the flow moves on; else REJECTED. */
export function approveTurn(
  contract: ContractRecord,
  signatory: SignatoryRecord,
  verdict: Verdict,
  at: string,
): void {
  if (contract.status !== 'SIGNING') {
    refuse('11011101', `contract ${contract.id} is ${contract.status}, not SIGNING`);
  }
  const action = currentAction(signatory);
  if (signatory.status !== 'SIGNING' || action?.type !== 'AUDIT') {
    refuse('11011107', `it is not the turn of an approver of "${signatory.tenantName}"`);
  }
  contract.approvals.push({
    time: at,
    signatoryId: signatory.id,
    actionId: action.id,
    pass: verdict.pass,
    comment: verdict.comment,
  });
  if (verdict.pass) finishCurrentAction(contract, signatory, at);
  else reject(contract, signatory, at);
}
