/**
 * Finding the contract a request addresses. The spec lists two "not found" codes (11101003
 * "does not exist" and 11011126 "not found") without saying which operation uses which; the
 * simulator answers 11011126 for reminders (the only operation listing it) and 11101003 for
 * every other operation, including those of envelope A, which have no code of their own.
 */

import { refuse } from '../refusal.js';
import type { ContractRecord } from '../state/model.js';
import type { OperationContext } from './context.js';

export const CONTRACT_NOT_EXIST = '11101003';
export const CONTRACT_NOT_FOUND = '11011126';

export interface ContractRef {
  readonly contractId?: string | undefined;
  readonly bizId?: string | undefined;
  readonly tenantName?: string | undefined;
}

export interface FindOptions {
  readonly notFound: string;
  /**
   * Whether `tenantName` names the owner. It does everywhere but in approval, where it names
   * the approving signatory and the approver's own rule decides the permission.
   */
  readonly tenantIsOwner?: boolean;
}

/** contractId wins when both are given; bizId alone must come with the owner's tenantName. */
export function findContract(
  ctx: OperationContext,
  ref: ContractRef,
  options: FindOptions,
): ContractRecord {
  const { directory, store } = ctx;
  if (ref.tenantName !== undefined && !directory.isOwnTenant(ref.tenantName)) {
    refuse(
      '14990002',
      `"${ref.tenantName}" is neither the caller's company nor one of its subsidiaries`,
    );
  }
  const contractId = ref.contractId?.trim();
  if (contractId) {
    return (
      store.byId(contractId) ?? refuse(options.notFound, `contract ${contractId} does not exist`)
    );
  }
  const bizId = ref.bizId ?? '';
  const contract =
    store.byBizId(bizId) ?? refuse(options.notFound, `no contract has bizId "${bizId}"`);
  const owner = ref.tenantName ?? directory.companyName;
  if (options.tenantIsOwner !== false && contract.tenantName !== owner) {
    refuse(
      '14990002',
      `contract "${bizId}" belongs to "${contract.tenantName}"; pass it as tenantName`,
    );
  }
  return contract;
}

/** Documents are added only to drafts (1101). */
export function findDraft(ctx: OperationContext, ref: ContractRef): ContractRecord {
  const contract = findContract(ctx, ref, { notFound: CONTRACT_NOT_EXIST });
  if (contract.status !== 'DRAFT') {
    refuse(
      '1101',
      `contract ${contract.id} is ${contract.status}; documents are added only in DRAFT`,
    );
  }
  return contract;
}
