/**
 * Every contract the simulator holds, by id and by bizId. bizIds are unique across the caller's
 * company and its subsidiaries, so a bizId always finds one contract and the owner check can
 * tell "not yours" (14990002) from "does not exist".
 */
import type { Clock } from '../clock.js';
import type { ContractRecord } from './model.js';
import { expire } from './transitions.js';

export class ContractStore {
  readonly #byId = new Map<string, ContractRecord>();
  readonly #byBizId = new Map<string, ContractRecord>();

  constructor(readonly clock: Clock) {}

  add(contract: ContractRecord): void {
    this.#byId.set(contract.id, contract);
    if (contract.bizId !== undefined) this.#byBizId.set(contract.bizId, contract);
  }

  hasBizId(bizId: string): boolean {
    return this.#byBizId.has(bizId);
  }

  byId(id: string): ContractRecord | undefined {
    return this.#due(this.#byId.get(id));
  }

  byBizId(bizId: string): ContractRecord | undefined {
    return this.#due(this.#byBizId.get(bizId));
  }

  get size(): number {
    return this.#byId.size;
  }

  clear(): void {
    this.#byId.clear();
    this.#byBizId.clear();
  }

  /** Expiry is applied when a contract is next looked at, which is all anyone can observe. */
  #due(contract: ContractRecord | undefined): ContractRecord | undefined {
    if (contract?.status === 'SIGNING' && this.clock.timestamp() >= contract.expireTime) {
      expire(contract, contract.expireTime);
    }
    return contract;
  }
}
