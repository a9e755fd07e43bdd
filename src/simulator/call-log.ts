import type { CallFault } from './faults/fault-injector.js';

/**
 * The calls the simulator received, newest last, for tests to assert on (how many attempts,
 * with which bizId, answered with which code). Bounded: a ring keeps the last `limit` calls, so
 * a load test cannot grow it without end and recording stays O(1).
 */
export interface CallRecord {
  /** ISO 8601 time the request arrived. */
  readonly received: string;
  /** ISO 8601 time the answer was done with: sent, cut, or its client gone (a dripped call's). */
  readonly time: string;
  readonly operation: string;
  readonly bizId?: string | undefined;
  readonly contractId?: string | undefined;
  /** The signatory a reminder names (absent: a reminder to whoever signs now, or another operation). */
  readonly signatoryId?: string | undefined;
  readonly httpStatus: number;
  /**
   * The code of the operation's answer (`0` / `00000000` on success), whether or not a fault
   * kept it from the client; absent when the operation did not run.
   */
  readonly code?: string | undefined;
  /** The client was sent, in full and readable, a success answer (HTTP 200, success code). */
  readonly ok: boolean;
  /**
   * The operation ran (authentication, body, rules and, when it succeeded, its state change):
   * with a success `code` its side effect took place, even if a fault then spoiled the answer.
   * False when a fault or the rate limit answered, cut or held the call instead.
   */
  readonly applied: boolean;
  /** The fault that acted on this call, if one did (`rateLimit`: the requests-per-second 429). */
  readonly fault?: CallFault | undefined;
}

export interface CallFilter {
  readonly operation?: string | undefined;
  readonly bizId?: string | undefined;
  readonly contractId?: string | undefined;
}

export class CallLog {
  readonly #ring: (CallRecord | undefined)[];
  #next = 0;

  constructor(readonly limit = 10_000) {
    this.#ring = new Array(limit);
  }

  record(call: CallRecord): void {
    this.#ring[this.#next % this.limit] = call;
    this.#next += 1;
  }

  list(filter: CallFilter = {}): CallRecord[] {
    const start = Math.max(0, this.#next - this.limit);
    const calls: CallRecord[] = [];
    for (let i = start; i < this.#next; i += 1) {
      const call = this.#ring[i % this.limit];
      if (call && matches(call, filter)) calls.push(call);
    }
    return calls;
  }

  clear(): void {
    this.#ring.fill(undefined);
    this.#next = 0;
  }
}

function matches(call: CallRecord, filter: CallFilter): boolean {
  return (
    (filter.operation === undefined || call.operation === filter.operation) &&
    (filter.bizId === undefined || call.bizId === filter.bizId) &&
    (filter.contractId === undefined || call.contractId === filter.contractId)
  );
}
