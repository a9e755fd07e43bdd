/**
 * What tests do in the place of people: a signatory signs or rejects, an approver decides, time
 * runs out. Each acts on the contract's current turn only; anything else is a 409.
 */
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { approveTurn } from '../operations/approve-contract.js';
import { PlatformRefusal } from '../refusal.js';
import type { ContractRecord, SignatoryRecord } from '../state/model.js';
import type { ContractStore } from '../state/store.js';
import { expire, reject, signAll } from '../state/transitions.js';
import { AdminError } from './admin-error.js';

export const Verdict = z.object({ pass: z.boolean(), comment: z.string().optional() });

export interface TurnRef {
  readonly contractId: string;
  readonly signatoryId: string;
}

/** The signatory signs: every remaining node of its flow (approvals included) finishes. */
export function sign(store: ContractStore, clock: Clock, ref: TurnRef): ContractRecord {
  return actOnTurn(store, clock, ref, signAll);
}

export function rejectAsSignatory(
  store: ContractStore,
  clock: Clock,
  ref: TurnRef,
): ContractRecord {
  return actOnTurn(store, clock, ref, reject);
}

/** As `/v2/contract/employeeaudit` does, for a signatory named by id rather than by name. */
export function approve(
  store: ContractStore,
  clock: Clock,
  ref: TurnRef,
  verdict: z.output<typeof Verdict>,
): ContractRecord {
  return actOnTurn(store, clock, ref, (contract, signatory, at) => {
    try {
      approveTurn(contract, signatory, verdict, at);
    } catch (error) {
      if (error instanceof PlatformRefusal)
        throw new AdminError(409, `${error.code}: ${error.message}`);
      throw error;
    }
  });
}

/** Expiry now, as if the contract's expireTime had passed. */
export function expireNow(store: ContractStore, clock: Clock, contractId: string): ContractRecord {
  const contract = existing(store, contractId);
  if (contract.status !== 'SIGNING') {
    throw new AdminError(
      409,
      `contract ${contractId} is ${contract.status}; only SIGNING contracts expire`,
    );
  }
  expire(contract, clock.timestamp());
  return contract;
}

export function existing(store: ContractStore, contractId: string): ContractRecord {
  const contract = store.byId(contractId);
  if (!contract) throw new AdminError(404, `contract ${contractId} does not exist`);
  return contract;
}

function onTurn(
  store: ContractStore,
  ref: TurnRef,
): { contract: ContractRecord; signatory: SignatoryRecord } {
  const contract = existing(store, ref.contractId);
  const signatory = contract.signatories.find((s) => s.id === ref.signatoryId);
  if (!signatory)
    throw new AdminError(404, `signatory ${ref.signatoryId} is not in contract ${ref.contractId}`);
  if (contract.status !== 'SIGNING' || signatory.status !== 'SIGNING') {
    throw new AdminError(
      409,
      `signatory ${signatory.id} is ${signatory.status} in a ${contract.status} contract; it is not its turn`,
    );
  }
  return { contract, signatory };
}

/** Applies an action of the signatory whose turn it is, now, and returns the contract. */
function actOnTurn(
  store: ContractStore,
  clock: Clock,
  ref: TurnRef,
  act: (contract: ContractRecord, signatory: SignatoryRecord, at: string) => void,
): ContractRecord {
  const { contract, signatory } = onTurn(store, ref);
  act(contract, signatory, clock.timestamp());
  return contract;
}
