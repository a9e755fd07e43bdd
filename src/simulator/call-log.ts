/**
 * The calls the simulator received, newest last, for tests to assert on (how many attempts,
 * with which bizId, answered with which code). Bounded: a ring keeps the last `limit` calls, so
 * a load test cannot grow it without end and recording stays O(1).
 */
export interface CallRecord {
  /** ISO 8601 time the request arrived. */
  readonly received: string;
  /** ISO 8601 time the answer was sent. */
  readonly time: string;
  readonly operation: string;
  readonly bizId?: string | undefined;
  readonly contractId?: string | undefined;
  readonly httpStatus: number;
  /** The code answered (`0` / `00000000` on success); absent when a fault answered instead. */
  readonly code?: string | undefined;
  readonly ok: boolean;
  /** The fault injector answered (or cut) this call; the operation did not run. */
  readonly fault?: boolean;
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
