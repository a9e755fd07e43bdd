/**
 * One partition number's life in this instance, as pure transitions (docs/design.md, "Ownership
 * and rebalances"):
 *
 *   pending ─► marking ─► reading ─► (awaiting) ─► (fencing ─► confirming) ─► active ─► draining
 *                  └─► blocked                          releasing ◄─┘ ─► gone, or pending (assigned again)
 *
 * - pending: assigned; the group's members are being learnt (who may still hold it).
 * - marking: this acquisition's `acquired` marker is being written to the ledger partition.
 * - reading: the ledger partition is read until that marker comes back.
 * - awaiting: the marker came back, but a previous holder still in the group has not written its
 *   `released` marker yet; reading goes on until it does, or the handover times out.
 * - fencing (exactly-once): previous holders never released it (not in the group, or not in
 *   time): their transactional ids are taken, so that a transaction one of them left open (its
 *   process frozen, say) is aborted and can never be committed later; reading goes on.
 * - confirming: this acquisition's `active` marker is written and read back, so that whatever
 *   those holders committed before they were fenced has been read before it takes over.
 * - active: its commands are fetched and run.
 * - draining: lost (or stopping): nothing new starts; running commands may finish and write until
 *   a deadline, then they are aborted and get a short grace.
 * - releasing: the outbox is flushed, offsets committed, the ledger entries dropped and the
 *   `released` marker written.
 * - blocked: the ledger refused the `acquired` marker for good: nothing of it runs.
 *
 * From any phase, `lost` (this instance's lease ended: lease.ts) gives it up at once and writes
 * nothing: runs aborted, queued commands and its ledger entries dropped, no commit, no marker.
 *
 * `transition` decides; the driver (partitions.ts) applies its decisions and feeds back what
 * happened as events. What to fetch follows from the phases alone (fetch-plan.ts).
 */

export type Phase =
  | 'pending'
  | 'marking'
  | 'reading'
  | 'awaiting'
  | 'fencing'
  | 'confirming'
  | 'active'
  | 'draining'
  | 'releasing'
  | 'blocked';

export interface PartitionState {
  readonly phase: Phase;
  /** This acquisition's marker nonce, from marking on. */
  readonly nonce?: string;
  /** The group's members when it was acquired; undefined when they could not be learnt. */
  readonly live?: ReadonlySet<string> | undefined;
  /** awaiting: the previous holders whose `released` marker is still to come. */
  readonly waitingFor?: ReadonlySet<string>;
  /** Previous holders that never released it: not in the group any more, or not in time. */
  readonly crashed?: ReadonlySet<string>;
  /** fencing, confirming: the handover timed out (a holder in the group did not release). */
  readonly timedOut?: boolean;
  /** draining: its running commands were aborted (the deadline passed). */
  readonly aborted?: boolean;
  /** draining or releasing: assigned to this instance again meanwhile. */
  readonly reacquire?: boolean;
  /** The bridge is stopping: it is released and never acquired again. */
  readonly stopping?: boolean;
}

export type PartitionEvent =
  | {
      readonly type: 'members-known';
      readonly live: ReadonlySet<string> | undefined;
      readonly nonce: string;
    }
  | { readonly type: 'marker-written' }
  | { readonly type: 'marker-refused'; readonly error: unknown }
  | { readonly type: 'marker-abandoned' }
  | { readonly type: 'own-marker-read'; readonly holders: readonly string[] }
  | { readonly type: 'holder-released'; readonly instance: string }
  | { readonly type: 'handover-timed-out' }
  /** The previous holders' transactional ids are taken (fencing). */
  | { readonly type: 'fenced' }
  /** This acquisition's `active` marker came back from the ledger (confirming). */
  | { readonly type: 'own-active-read' }
  | { readonly type: 'revoked'; readonly drainMs: number }
  /** The bridge stops: released as if revoked, and not acquired again whatever is assigned. */
  | { readonly type: 'stop'; readonly drainMs: number }
  /** This instance's lease ended (lease.ts): it may no longer act for the partition at all. */
  | { readonly type: 'lost' }
  | { readonly type: 'assigned' }
  | { readonly type: 'runs-idle' }
  | { readonly type: 'drain-timed-out' }
  | { readonly type: 'abort-grace-over' }
  | { readonly type: 'released' };

export type Timer = 'handover' | 'drain' | 'abort-grace';

export type Decision =
  | { readonly do: 'learn-members' }
  | { readonly do: 'write-acquired'; readonly nonce: string }
  /** Take the transactional ids of these previous holders, until done or no longer fencing. */
  | { readonly do: 'fence'; readonly instances: readonly string[] }
  /** Write this acquisition's `active` marker (it is read back before the take-over). */
  | { readonly do: 'write-active' }
  | { readonly do: 'start-timer'; readonly timer: Timer; readonly ms: number }
  | { readonly do: 'cancel-timer'; readonly timer: Timer }
  /**
   * Take the restored entries over, delete the markers of holders whose ownership is over, and
   * be careful with what the crashed ones had in hand.
   */
  | { readonly do: 'take-over'; readonly timedOut: boolean; readonly crashed: readonly string[] }
  /**
   * Queued commands are dropped (the next owner runs them); nothing new starts, since commands
   * start only while it is active (partition-task.ts).
   */
  | { readonly do: 'drop-queued' }
  | { readonly do: 'watch-runs' }
  | { readonly do: 'abort-runs' }
  /** Flush, refuse further writes, commit, drop the ledger entries, write `released`. */
  | { readonly do: 'release' }
  /** Drop the partition's ledger entries from memory, writing nothing (lost). */
  | { readonly do: 'drop-entries' }
  | { readonly do: 'report-unwritable'; readonly error: unknown }
  /** The acquisition ended: active, or given up. */
  | { readonly do: 'settle' }
  | { readonly do: 'forget' };

export interface Settings {
  readonly handoverTimeoutMs: number;
  /** How long aborted runs get to wind down before the partition is released regardless. */
  readonly abortGraceMs: number;
  /**
   * Exactly-once: previous holders that never released the partition are fenced, and the
   * acquisition's `active` marker read back, before it takes over.
   */
  readonly fencesHolders?: boolean;
}

export interface Transition {
  readonly state: PartitionState | undefined;
  readonly decisions: readonly Decision[];
}

export const NEW_PARTITION: PartitionState = { phase: 'pending' };

/**
 * The next state (undefined: gone) and what to do, for an event in a state. An event that does
 * not apply to the state (a late acknowledgement, a timer that raced its cancellation) changes
 * nothing.
 */
export function transition(
  state: PartitionState,
  event: PartitionEvent,
  settings: Settings,
): Transition {
  const unchanged: Transition = { state, decisions: [] };
  if (event.type === 'lost') return lost(state);
  if (state.stopping && isOwnership(event)) return unchanged;
  if (event.type === 'stop') return stopped(state, event.drainMs, settings);
  if (event.type === 'assigned') return assignedAgain(state);
  if (event.type === 'revoked' && isLeaving(state)) return to({ ...state, reacquire: false });
  switch (state.phase) {
    case 'pending':
      return fromPending(state, event) ?? unchanged;
    case 'marking':
      return fromMarking(state, event) ?? unchanged;
    case 'reading':
    case 'awaiting':
    case 'fencing':
    case 'confirming':
      return fromRestoring(state, event, settings) ?? unchanged;
    case 'active':
      return fromActive(state, event) ?? unchanged;
    case 'draining':
      return fromDraining(state, event, settings) ?? unchanged;
    case 'releasing':
      return fromReleasing(state, event) ?? unchanged;
    case 'blocked':
      return event.type === 'revoked' ? gone() : unchanged;
  }
}

function fromPending(state: PartitionState, event: PartitionEvent): Transition | undefined {
  if (event.type === 'revoked') return gone({ do: 'settle' });
  if (event.type !== 'members-known') return undefined;
  const { live, nonce } = event;
  return to({ ...state, phase: 'marking', live, nonce }, { do: 'write-acquired', nonce });
}

function fromMarking(state: PartitionState, event: PartitionEvent): Transition | undefined {
  switch (event.type) {
    case 'marker-written':
      return to({ ...state, phase: 'reading' });
    case 'marker-refused':
      return to(
        { ...state, phase: 'blocked' },
        { do: 'report-unwritable', error: event.error },
        { do: 'settle' },
      );
    case 'marker-abandoned':
      return gone({ do: 'settle' });
    // The released marker goes after the acquired one: the outbox keeps the order of writes.
    case 'revoked':
      return to({ ...state, phase: 'releasing' }, { do: 'release' }, { do: 'settle' });
    default:
      return undefined;
  }
}

function fromRestoring(
  state: PartitionState,
  event: PartitionEvent,
  settings: Settings,
): Transition | undefined {
  switch (event.type) {
    case 'own-marker-read': {
      if (state.phase !== 'reading') return undefined;
      // A holder no longer in the group crashed or left: nothing to wait for.
      const alive = (instance: string) => state.live?.has(instance) ?? true;
      const waitingFor = new Set(event.holders.filter(alive));
      const crashed = new Set(event.holders.filter((instance) => !alive(instance)));
      if (waitingFor.size === 0) return activate({ ...state, crashed }, false, settings);
      return to(
        { ...state, phase: 'awaiting', waitingFor, crashed },
        { do: 'start-timer', timer: 'handover', ms: settings.handoverTimeoutMs },
      );
    }
    case 'holder-released': {
      if (state.phase !== 'awaiting') return undefined;
      const waitingFor = new Set(state.waitingFor);
      waitingFor.delete(event.instance);
      if (waitingFor.size > 0) return to({ ...state, waitingFor });
      return activate(state, false, settings, { do: 'cancel-timer', timer: 'handover' });
    }
    case 'handover-timed-out': {
      if (state.phase !== 'awaiting') return undefined;
      const crashed = new Set([...(state.crashed ?? []), ...(state.waitingFor ?? [])]);
      return activate({ ...state, crashed }, true, settings);
    }
    case 'fenced':
      if (state.phase !== 'fencing') return undefined;
      return to({ ...state, phase: 'confirming' }, { do: 'write-active' });
    case 'own-active-read':
      if (state.phase !== 'confirming') return undefined;
      return takeOver(state, state.timedOut ?? false);
    case 'revoked':
      return to(
        { ...state, phase: 'releasing', waitingFor: undefined },
        { do: 'cancel-timer', timer: 'handover' },
        { do: 'release' },
        { do: 'settle' },
      );
    default:
      return undefined;
  }
}

/**
 * The restore is over. Previous holders that never released the partition are fenced first in
 * exactly-once mode; otherwise it takes over now.
 */
function activate(
  state: PartitionState,
  timedOut: boolean,
  settings: Settings,
  ...first: Decision[]
): Transition {
  const crashed = [...(state.crashed ?? [])];
  if (crashed.length === 0 || !settings.fencesHolders) return takeOver(state, timedOut, ...first);
  return to({ ...state, phase: 'fencing', waitingFor: undefined, timedOut }, ...first, {
    do: 'fence',
    instances: crashed,
  });
}

function takeOver(state: PartitionState, timedOut: boolean, ...first: Decision[]): Transition {
  const crashed = [...(state.crashed ?? [])];
  return to(
    { ...state, phase: 'active', waitingFor: undefined, crashed: undefined, timedOut: undefined },
    ...first,
    { do: 'take-over', timedOut, crashed },
    { do: 'settle' },
  );
}

/** Its ledger partition is read: the restore, and what comes before the take-over. */
export function isRestoring(phase: Phase | 'gone'): boolean {
  return (
    phase === 'reading' || phase === 'awaiting' || phase === 'fencing' || phase === 'confirming'
  );
}

function fromActive(state: PartitionState, event: PartitionEvent): Transition | undefined {
  if (event.type !== 'revoked') return undefined;
  return to(
    { ...state, phase: 'draining', aborted: false },
    { do: 'drop-queued' },
    { do: 'start-timer', timer: 'drain', ms: event.drainMs },
    { do: 'watch-runs' },
  );
}

function fromDraining(
  state: PartitionState,
  event: PartitionEvent,
  settings: Settings,
): Transition | undefined {
  switch (event.type) {
    case 'runs-idle':
      return to(
        { ...state, phase: 'releasing' },
        { do: 'cancel-timer', timer: state.aborted ? 'abort-grace' : 'drain' },
        { do: 'release' },
      );
    case 'drain-timed-out':
      if (state.aborted) return undefined;
      return to(
        { ...state, aborted: true },
        { do: 'abort-runs' },
        { do: 'start-timer', timer: 'abort-grace', ms: settings.abortGraceMs },
      );
    case 'abort-grace-over':
      return state.aborted ? to({ ...state, phase: 'releasing' }, { do: 'release' }) : undefined;
    default:
      return undefined;
  }
}

function fromReleasing(state: PartitionState, event: PartitionEvent): Transition | undefined {
  if (event.type !== 'released') return undefined;
  return state.reacquire ? to(NEW_PARTITION, { do: 'learn-members' }) : gone();
}

/**
 * Stopping is being revoked for good: the same transitions, and from then on the state ignores
 * every event but those that end its release.
 */
function stopped(state: PartitionState, drainMs: number, settings: Settings): Transition {
  const revoked = transition(state, { type: 'revoked', drainMs }, settings);
  if (!revoked.state) return revoked;
  return {
    state: { ...revoked.state, stopping: true, reacquire: false },
    decisions: revoked.decisions,
  };
}

/**
 * The lease ended: whatever the phase, nothing more is written for the partition, not even its
 * release. Runs are aborted (their writes are refused from now on: the task is gone), timers
 * end with the task.
 */
function lost(state: PartitionState): Transition {
  const running = state.phase === 'active' || state.phase === 'draining';
  return gone(
    ...(running ? [{ do: 'abort-runs' } as const, { do: 'drop-queued' } as const] : []),
    { do: 'drop-entries' },
    { do: 'settle' },
  );
}

/** Assigned again before it was released: acquired anew once the release is done. */
function assignedAgain(state: PartitionState): Transition {
  return isLeaving(state) ? to({ ...state, reacquire: true }) : to(state);
}

/** Events of the group's assignment, and the stop: they change who owns the partition. */
function isOwnership({ type }: PartitionEvent): boolean {
  return type === 'assigned' || type === 'revoked' || type === 'stop';
}

function isLeaving({ phase }: PartitionState): boolean {
  return phase === 'draining' || phase === 'releasing';
}

function to(state: PartitionState, ...decisions: Decision[]): Transition {
  return { state, decisions };
}

function gone(...decisions: Decision[]): Transition {
  return { state: undefined, decisions: [...decisions, { do: 'forget' }] };
}
