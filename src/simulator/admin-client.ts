/**
 * The admin API over HTTP, so tests drive a simulator in this process or in another one alike:
 * `new AdminClient('http://127.0.0.1:4000')`. Every method is one admin request, except
 * `signAll` and `waitUntilReady`, which repeat one.
 */
import { type Dispatcher, request } from 'undici';
import { AdminRequestFailed } from '../errors.js';
import type { CallFilter, CallRecord } from './call-log.js';
import type { FaultConfig } from './faults/index.js';
import type { SealStatus } from './fixtures.js';
import type { ContractRecord } from './state/model.js';

export { AdminRequestFailed };

export type ContractLookup = { readonly contractId: string } | { readonly bizId: string };

export interface Verdict {
  readonly pass: boolean;
  readonly comment?: string;
}

export class AdminClient {
  readonly #origin: string;
  readonly #dispatcher: Dispatcher | undefined;

  constructor(baseUrl: string | URL, options: { readonly dispatcher?: Dispatcher } = {}) {
    this.#origin = new URL(baseUrl).origin;
    this.#dispatcher = options.dispatcher;
  }

  health(): Promise<{ ok: boolean; contracts: number }> {
    return this.#call('GET', '/admin/health');
  }

  /** The full record: statuses, complateTimes, documents with page text, positions, reminders, approvals. */
  contract(lookup: ContractLookup): Promise<ContractRecord> {
    return 'contractId' in lookup
      ? this.#call('GET', `/admin/contracts/${encodeURIComponent(lookup.contractId)}`)
      : this.#call('GET', `/admin/contracts?bizId=${encodeURIComponent(lookup.bizId)}`);
  }

  /** The signatory, on its turn, finishes its whole flow. */
  sign(contractId: string, signatoryId: string): Promise<ContractRecord> {
    return this.#call('POST', `${turnPath(contractId, signatoryId)}/sign`);
  }

  /** The signatory, on its turn, refuses: the contract is REJECTED. */
  reject(contractId: string, signatoryId: string): Promise<ContractRecord> {
    return this.#call('POST', `${turnPath(contractId, signatoryId)}/reject`);
  }

  /** An approver of the signatory decides on its current AUDIT node. */
  approve(contractId: string, signatoryId: string, verdict: Verdict): Promise<ContractRecord> {
    return this.#call('POST', `${turnPath(contractId, signatoryId)}/approve`, verdict);
  }

  /** A SIGNING contract expires now. */
  expire(contractId: string): Promise<ContractRecord> {
    return this.#call('POST', `/admin/contracts/${encodeURIComponent(contractId)}/expire`);
  }

  /** Signs turn after turn until nobody is SIGNING; a contract with no one added later ends COMPLETE. */
  async signAll(lookup: ContractLookup): Promise<ContractRecord> {
    let contract = await this.contract(lookup);
    for (;;) {
      const onTurn = contract.signatories.filter((s) => s.status === 'SIGNING');
      if (contract.status !== 'SIGNING' || onTurn.length === 0) return contract;
      for (const signatory of onTurn) contract = await this.sign(contract.id, signatory.id);
    }
  }

  calls(filter: CallFilter = {}): Promise<CallRecord[]> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(filter))
      if (value !== undefined) query.set(name, value);
    const suffix = query.size > 0 ? `?${query}` : '';
    return this.#call('GET', `/admin/calls${suffix}`);
  }

  faults(): Promise<FaultConfig> {
    return this.#call('GET', '/admin/faults');
  }

  /** Replaces the fault configuration; the answer is the configuration now in force. */
  setFaults(config: FaultConfig): Promise<FaultConfig> {
    return this.#call('PUT', '/admin/faults', config);
  }

  setSealStatus(sealId: string, status: SealStatus): Promise<{ id: string; status: SealStatus }> {
    return this.#call('PUT', `/admin/seals/${encodeURIComponent(sealId)}`, { status });
  }

  /** No contracts, no calls, fixture seal statuses, the faults the simulator started with. */
  async reset(): Promise<void> {
    await this.#call('POST', '/admin/reset');
  }

  /** For a simulator started in another process: polls /admin/health until it answers. */
  async waitUntilReady(timeoutMs = 10_000): Promise<void> {
    // On the monotonic clock: a step of the wall clock neither ends the wait early nor stretches it.
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      try {
        await this.health();
        return;
      } catch (error) {
        if (performance.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  async #call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const response = await request(`${this.#origin}${path}`, {
      method,
      dispatcher: this.#dispatcher,
      headers: { 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
    });
    const answer = (await response.body.json()) as T & { error?: string };
    if (response.statusCode === 200) return answer;
    throw new AdminRequestFailed(
      `simulator admin ${method} ${path}: ${answer.error ?? response.statusCode}`,
      {
        details: { method, path, httpStatus: response.statusCode },
      },
    );
  }
}

function turnPath(contractId: string, signatoryId: string): string {
  return `/admin/contracts/${encodeURIComponent(contractId)}/signatories/${encodeURIComponent(signatoryId)}`;
}
