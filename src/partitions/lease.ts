/**
 * Ownership is a lease (docs/design.md, "When the group changes"). This instance may start a
 * platform call, or write a ledger entry, an ending or an offset for its partitions, only while
 * it can know that the group still counts it as their owner: while the coordinator answered it
 * within the last `leaseMs` (a join, or a heartbeat), a bound well below the group's session
 * timeout. An instance that stops hearing from the coordinator (its event loop stalled, its VM
 * frozen, the network to the brokers cut) stops acting once `leaseMs` has passed, before the
 * coordinator can have given its partitions to another member at the session timeout; one whose
 * consumer crashed (kafkajs leaves the group and, restarting, joins anew) stops at once.
 *
 * Losing the lease gives every partition up without writing anything: runs are aborted, queued
 * and cached state dropped, no offset committed, no marker written. When the coordinator answers
 * again (a heartbeat of the same membership, or a join), the partitions the group assigns are
 * acquired afresh, as if from another instance.
 *
 * `transition` is pure: it returns what to do; the driver (partitions.ts) applies it. Times are
 * the process's monotonic clock (`performance.now()`), which a step of the wall clock never moves
 * and which counts on while the process is frozen.
 */

export interface LeaseState {
  /** When the coordinator last answered this member; undefined before the first join. */
  readonly provenAt: number | undefined;
  /** Every partition was given up; nothing is held until the coordinator answers again. */
  readonly lost: boolean;
}

export type LeaseEvent =
  /** The coordinator answered: the member joined the group, or a heartbeat was accepted. */
  | { readonly type: 'answered'; readonly at: number }
  /** The time the lease was due to end has come (a timer). */
  | { readonly type: 'due'; readonly at: number }
  /** The group consumer crashed: it has left the group, whether or not it restarts. */
  | { readonly type: 'crashed' };

export type LoseReason = 'expired' | 'crashed';

export type LeaseDecision =
  /** Give every partition up at once, writing nothing. */
  | { readonly do: 'lose-all'; readonly reason: LoseReason }
  /** The coordinator answers again after a loss: acquire what the group assigns, afresh. */
  | { readonly do: 'regain' }
  /** Check again when the lease would end, unless renewed before. */
  | { readonly do: 'due-at'; readonly at: number };

export interface LeaseTransition {
  readonly state: LeaseState;
  readonly decisions: readonly LeaseDecision[];
}

export const NO_LEASE: LeaseState = { provenAt: undefined, lost: false };

/** Whether the partitions may be acted for at `now`. */
export function holds(state: LeaseState, now: number, leaseMs: number): boolean {
  return !state.lost && state.provenAt !== undefined && now - state.provenAt < leaseMs;
}

/**
 * Whether the partitions may be acted for at `now` and will still be `marginMs` later should the
 * coordinator not answer again meanwhile: the lease's end is more than `marginMs` away.
 */
export function holdsFor(
  state: LeaseState,
  now: number,
  leaseMs: number,
  marginMs: number,
): boolean {
  return holds(state, now + marginMs, leaseMs);
}

/**
 * How much of the lease must be left for a platform step to be recorded `started` (half of it: 3 s
 * of the 6 s): writing that record takes a Kafka round trip (seconds while a partition's leader
 * moves), and a request only leaves once it is acknowledged and the lease still holds; a
 * `started` whose lease ends before its request leaves is a step in doubt that was never made
 * (docs/design.md, "When the group changes"). A step waits, rather than starting, while less
 * is left: normally a heartbeat answered within the last second leaves about 5 s.
 */
export const startedMarginMs = (leaseMs: number): number => leaseMs / 2;

/** Whether the lease has run out by `now` without that having been acted on yet. */
function ranOut(state: LeaseState, now: number, leaseMs: number): boolean {
  return !state.lost && state.provenAt !== undefined && now - state.provenAt >= leaseMs;
}

export function transition(state: LeaseState, event: LeaseEvent, leaseMs: number): LeaseTransition {
  switch (event.type) {
    case 'answered': {
      const renewed: LeaseState = { provenAt: event.at, lost: false };
      const due: LeaseDecision = { do: 'due-at', at: event.at + leaseMs };
      // Frozen past the lease, the answer that comes first after the thaw must not carry on
      // what was held before it: that is given up first, as the timer would have.
      if (ranOut(state, event.at, leaseMs)) {
        return { state: renewed, decisions: [lose('expired'), { do: 'regain' }, due] };
      }
      if (state.lost) return { state: renewed, decisions: [{ do: 'regain' }, due] };
      return { state: renewed, decisions: [due] };
    }
    case 'due':
      if (ranOut(state, event.at, leaseMs)) {
        return { state: { ...state, lost: true }, decisions: [lose('expired')] };
      }
      return { state, decisions: [] };
    case 'crashed':
      // Before its first join it holds nothing to give up.
      if (state.lost || state.provenAt === undefined) return { state, decisions: [] };
      return { state: { ...state, lost: true }, decisions: [lose('crashed')] };
  }
}

function lose(reason: LoseReason): LeaseDecision {
  return { do: 'lose-all', reason };
}

/**
 * One bridge's lease, as the parts that must not act without it read it: its partitions' tasks,
 * the outbox, the offset commits. partitions.ts feeds it the group's answers and applies what
 * `step` returns.
 */
export class Lease {
  #state: LeaseState = NO_LEASE;

  constructor(readonly leaseMs: number) {}

  /** Whether this instance may act for its partitions now. */
  holds(now: number = performance.now()): boolean {
    return holds(this.#state, now, this.leaseMs);
  }

  /** Whether it holds now and still will `marginMs` later, should no answer come meanwhile. */
  holdsFor(marginMs: number, now: number = performance.now()): boolean {
    return holdsFor(this.#state, now, this.leaseMs, marginMs);
  }

  /** Every partition was given up; nothing is held until the group answers again. */
  get lost(): boolean {
    return this.#state.lost;
  }

  step(event: LeaseEvent): readonly LeaseDecision[] {
    const next = transition(this.#state, event, this.leaseMs);
    this.#state = next.state;
    return next.decisions;
  }
}
