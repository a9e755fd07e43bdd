/** `/v2/contract/send`: only a DRAFT is initiated (1101); positions are located on the way. */
import { refuse } from '../refusal.js';
import type { OperationHandler } from './context.js';
import { CONTRACT_NOT_EXIST, findContract } from './contract-ref.js';
import { initiate } from './initiation.js';

export const initiateContract: OperationHandler<'initiateContract'> = (request, ctx) => {
  const contract = findContract(ctx, request, { notFound: CONTRACT_NOT_EXIST });
  if (contract.status !== 'DRAFT') {
    refuse('1101', `contract ${contract.id} is ${contract.status}; only a DRAFT is initiated`);
  }
  initiate(contract, request.stampers ?? [], ctx);
  return { contract };
};
