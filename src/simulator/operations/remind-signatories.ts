/**
 * `/v2/contract/notice`: reminds the signatories whose turn it is, or the one named; the
 * initiator is never reminded. Reminders change no status; they are recorded on the contract.
 */
import { refuse } from '../refusal.js';
import type { ContractRecord, SignatoryRecord } from '../state/model.js';
import type { OperationHandler } from './context.js';
import { CONTRACT_NOT_FOUND, findContract } from './contract-ref.js';

/** onlySigning false also reminds contracts being filled or pending invalidation. */
const REMINDABLE = {
  onlySigning: ['SIGNING'],
  any: ['SIGNING', 'FILLING', 'INVALIDING'],
} as const;

export const remindSignatories: OperationHandler<'remindSignatories'> = (request, ctx) => {
  const contract = findContract(ctx, request, { notFound: CONTRACT_NOT_FOUND });
  const allowed: readonly string[] =
    request.onlySigning === false ? REMINDABLE.any : REMINDABLE.onlySigning;
  if (!allowed.includes(contract.status)) {
    refuse(
      '11011101',
      `contract ${contract.id} is ${contract.status}; reminders need ${allowed.join(' or ')}`,
    );
  }
  const reminded = request.signatoryId ? [named(contract, request.signatoryId)] : awaited(contract);
  contract.reminders.push({ time: ctx.clock.timestamp(), signatoryIds: reminded.map((s) => s.id) });
  return { contract };
};

function named(contract: ContractRecord, signatoryId: string): SignatoryRecord {
  const signatory =
    contract.signatories.find((s) => s.id === signatoryId) ??
    refuse('11990005', `signatory ${signatoryId} is not in contract ${contract.id}`);
  if (signatory.initiator) refuse('11990005', 'the initiator is never reminded');
  return signatory;
}

function awaited(contract: ContractRecord): SignatoryRecord[] {
  return contract.signatories.filter((s) => !s.initiator && s.status === 'SIGNING');
}
