/**
 * The driver of every partition's machine (partition-machine.ts): it turns assignments, ledger
 * records, acknowledgements and timers into events, applies the decisions the machine returns,
 * and after each step tells the consumer what to fetch (fetch-plan.ts). It holds no phase of its
 * own: only the instruments the decisions act on (leases, ledger readers, timers).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { LedgerUnwritable, OutboxClosed, PartitionReleased } from '../errors.js';
import type { FetchedBatch, GroupConsumer } from '../kafka/index.js';
import {
  forwardedRecord,
  type Ledger,
  LedgerReader,
  markerRecord,
  markerTombstone,
  type OwnershipMarker,
} from '../ledger/index.js';
import type { Outbox } from '../producers/index.js';
import { CrashGuard } from './crash-guard.js';
import { fetchPlan, type Holds } from './fetch-plan.js';
import type { Leases } from './lease.js';
import { LedgerUpkeep } from './ledger-upkeep.js';
import {
  type Decision,
  NEW_PARTITION,
  type PartitionEvent,
  type PartitionState,
  type Phase,
  type Settings,
  type Timer,
  transition,
} from './partition-machine.js';

export interface PartitionsOptions {
  readonly consumer: Pick<
    GroupConsumer,
    'liveInstances' | 'committed' | 'offsetForTime' | 'seek' | 'commit' | 'pause' | 'resume'
  >;
  readonly instance: string;
  readonly topics: { readonly commands: readonly string[]; readonly ledger: string };
  readonly ledger: Ledger;
  readonly outbox: Outbox;
  /** The leases the command runner reads; this opens, flips and closes them. */
  readonly leases: Leases;
  /** Drops the partition's queued commands (and those waiting to retry): the next owner runs them. */
  readonly clearQueued: (partition: number) => void;
  /** Commits the partition's finished offsets and forgets the rest. */
  readonly commitAndForget: (partition: number) => Promise<void>;
  /**
   * The ledger topic refused this instance's `acquired` marker for good: the partition stays
   * blocked (nothing of it runs) until it is revoked.
   */
  readonly onLedgerUnwritable: (error: LedgerUnwritable) => void;
  /**
   * How many partitions this instance holds for the platform budget, each time that changes: a
   * partition counts from the moment it turns active until its release gives it up, just before
   * its `released` marker is written (docs/design.md, "Circuit breaker and rate limit").
   */
  readonly onShareChange?: (held: number) => void;
  readonly settings: Settings & {
    readonly crashLoopLimit: number;
    /** LEDGER_REPLAY_WINDOW (ledger-upkeep.ts). */
    readonly ledgerWindowMs: number;
  };
  readonly log: Logger;
}

const TIMER_EVENTS: Record<Timer, PartitionEvent> = {
  handover: { type: 'handover-timed-out' },
  drain: { type: 'drain-timed-out' },
  'abort-grace': { type: 'abort-grace-over' },
};

export class Partitions {
  readonly #options: PartitionsOptions;
  readonly #states = new Map<number, PartitionState>();
  readonly #readers = new Map<number, LedgerReader>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #acquiredAt = new Map<number, number>();
  // Partitions counted in this instance's share of the platform budget.
  readonly #sharing = new Set<number>();
  #assigned: readonly number[] = [];
  #holds: Holds = { all: new Set(), topics: new Set() };
  #stopping: { drainMs: number } | undefined;
  #firstRestore: { unsettled: Set<number>; done: Promise<void>; resolve: () => void } | undefined;
  #whenGone: Array<() => void> = [];

  readonly #upkeep: LedgerUpkeep;

  constructor(options: PartitionsOptions) {
    this.#options = options;
    const { consumer, ledger, outbox, settings, log } = options;
    this.#upkeep = new LedgerUpkeep({
      consumer,
      ledger,
      outbox,
      windowMs: settings.ledgerWindowMs,
      log,
    });
  }

  get assigned(): readonly number[] {
    return this.#assigned;
  }

  /** Settles once the partitions of the first assignment are active (or given up). */
  whenRestored(): Promise<void> {
    return this.#firstRestore?.done ?? Promise.resolve();
  }

  onAssignment(partitions: readonly number[]): void {
    const previous = new Set(this.#assigned);
    this.#assigned = partitions;
    if (this.#stopping) {
      this.#fetch();
      return;
    }
    const { handoverTimeoutMs } = this.#options.settings;
    for (const partition of previous) {
      if (!partitions.includes(partition)) {
        this.#dispatch(partition, { type: 'revoked', drainMs: handoverTimeoutMs / 2 });
      }
    }
    const fresh = partitions.filter((p) => !previous.has(p));
    for (const partition of fresh) {
      if (this.#states.has(partition)) this.#dispatch(partition, { type: 'assigned' });
      else this.#states.set(partition, NEW_PARTITION);
    }
    const pending = fresh.filter((p) => this.#states.get(p)?.phase === 'pending');
    if (!this.#firstRestore) this.#trackFirstRestore(pending);
    this.#learnMembers(pending);
    this.#fetch();
  }

  onLedgerBatch(batch: FetchedBatch): void {
    const { partition } = batch;
    const reader = this.#readers.get(partition);
    const last = batch.records.at(-1);
    if (!reader || !this.#isRestoring(partition) || last === undefined) return;
    for (const record of batch.records) {
      const fact = reader.apply(record);
      if (fact?.kind === 'own-marker-read') {
        this.#dispatch(partition, { type: 'own-marker-read', holders: fact.holders });
      } else if (fact?.kind === 'holder-released') {
        this.#dispatch(partition, { type: 'holder-released', instance: fact.instance });
      }
      if (!this.#isRestoring(partition)) break;
    }
    batch.resolve(last.offset);
  }

  /** Holds consumption back while the circuit is open, or lets it go on. */
  holdForBreaker(on: boolean): void {
    const all = new Set(this.#holds.all);
    if (on) all.add('breaker');
    else all.delete('breaker');
    this.#holds = { ...this.#holds, all };
    this.#fetch();
  }

  /** The command topics held back for backpressure. */
  holdTopics(topics: ReadonlySet<string>): void {
    this.#holds = { ...this.#holds, topics };
    this.#fetch();
  }

  /** Sweeps the ledger of every active partition (ledger-upkeep.ts); call every sweep interval. */
  upkeep(): void {
    for (const [partition, state] of this.#states) {
      const lease = this.#options.leases.current(partition);
      if (state.phase !== 'active' || !lease) continue;
      const { topic } = this.#options.ledger;
      const marks = [
        ...(lease.guard ? [lease.guard.markerRecord()] : []),
        ...(lease.forwarded.size > 0 ? [forwardedRecord(topic, partition, lease.forwarded)] : []),
      ];
      void this.#upkeep.sweep(partition, lease, marks);
    }
  }

  /** Releases every partition, giving running commands `drainMs` to finish; takes nothing new. */
  releaseAll(drainMs: number): Promise<void> {
    this.#stopping = { drainMs };
    const gone = new Promise<void>((resolve) => this.#whenGone.push(resolve));
    for (const partition of [...this.#states.keys()]) {
      this.#dispatch(partition, { type: 'revoked', drainMs });
    }
    this.#checkGone();
    return gone;
  }

  #dispatch(partition: number, event: PartitionEvent): void {
    const state = this.#states.get(partition);
    if (!state) return;
    const next = transition(state, event, this.#options.settings);
    if (next.state) this.#states.set(partition, next.state);
    this.#followShare(partition, next.state?.phase);
    for (const decision of next.decisions) this.#apply(partition, decision);
    this.#fetch();
  }

  /**
   * A partition's share is taken when it turns active (only after its previous holder gave its
   * share up and said so, or left the group) and kept while it drains, until #release gives it up.
   */
  #followShare(partition: number, phase: Phase | undefined): void {
    if (phase === 'active' && !this.#sharing.has(partition)) {
      this.#sharing.add(partition);
      this.#options.onShareChange?.(this.#sharing.size);
    } else if (phase !== 'active' && phase !== 'draining' && phase !== 'releasing') {
      this.#giveUpShare(partition);
    }
  }

  #giveUpShare(partition: number): void {
    if (this.#sharing.delete(partition)) this.#options.onShareChange?.(this.#sharing.size);
  }

  #apply(partition: number, decision: Decision): void {
    const lease = this.#options.leases.current(partition);
    switch (decision.do) {
      case 'learn-members':
        if (this.#stopping) this.#forget(partition);
        else this.#learnMembers([partition]);
        break;
      case 'write-acquired':
        this.#writeAcquired(partition, decision.nonce);
        break;
      case 'start-timer':
        this.#startTimer(partition, decision.timer, decision.ms);
        break;
      case 'cancel-timer':
        this.#cancelTimer(partition, decision.timer);
        break;
      case 'take-over':
        this.#takeOver(partition, decision.timedOut, decision.crashed);
        break;
      case 'allow-starts':
        lease?.allowStarts();
        break;
      case 'stop-starts':
        lease?.stopStarts();
        this.#options.clearQueued(partition);
        break;
      case 'watch-runs':
        void (lease?.whenIdle() ?? Promise.resolve()).then(() => {
          this.#dispatch(partition, { type: 'runs-idle' });
        });
        break;
      case 'abort-runs':
        lease?.abortRuns(released(partition));
        break;
      case 'release':
        void this.#release(partition);
        break;
      case 'report-unwritable':
        this.#options.onLedgerUnwritable(
          unwritable(this.#options.ledger.topic, partition, decision.error),
        );
        break;
      case 'settle':
        this.#settle(partition);
        break;
      case 'forget':
        this.#forget(partition);
        break;
    }
  }

  /** Learns the group's members, and where each partition's ledger restore starts. */
  #learnMembers(partitions: readonly number[]): void {
    if (partitions.length === 0) return;
    const { consumer, log } = this.#options;
    const live = consumer.liveInstances().catch((error: unknown) => {
      log.warn({ err: error }, 'group members unknown; waiting for every holder');
      return undefined;
    });
    for (const partition of partitions) {
      const positioned = this.#upkeep.position(partition).catch((error: unknown) => {
        log.warn({ err: error, partition }, 'ledger checkpoint unknown; reading from the start');
      });
      void Promise.all([live, positioned]).then(([members]) => {
        this.#dispatch(partition, { type: 'members-known', live: members, nonce: randomUUID() });
      });
    }
  }

  #writeAcquired(partition: number, nonce: string): void {
    const { instance, ledger, outbox, settings, onLedgerUnwritable } = this.#options;
    const marker: OwnershipMarker = { kind: 'acquired', instance, nonce };
    const guard = new CrashGuard({
      partition,
      ledgerTopic: ledger.topic,
      marker,
      outbox,
      maxDeaths: settings.crashLoopLimit,
      onRefused: (error) => onLedgerUnwritable(unwritable(ledger.topic, partition, error)),
    });
    this.#options.leases.open(partition, guard);
    this.#readers.set(partition, new LedgerReader({ instance, nonce }));
    this.#acquiredAt.set(partition, Date.now());
    outbox.write([markerRecord(ledger.topic, partition, marker)]).then(
      () => this.#dispatch(partition, { type: 'marker-written' }),
      (error: unknown) =>
        this.#dispatch(
          partition,
          error instanceof OutboxClosed
            ? { type: 'marker-abandoned' }
            : { type: 'marker-refused', error },
        ),
    );
  }

  #takeOver(partition: number, timedOut: boolean, crashed: readonly string[]): void {
    const reader = this.#readers.get(partition);
    this.#readers.delete(partition);
    if (!reader) return;
    const { ledger, outbox, log } = this.#options;
    ledger.adopt(partition, reader.entries);
    const lease = this.#options.leases.current(partition);
    for (const [topic, offset] of reader.forwarded) lease?.forwarded.set(topic, offset);
    if (crashed.length > 0) this.#recover(partition, reader, crashed);
    const others = reader.otherInstances();
    // Housekeeping: their ownership is over, so their markers can go.
    if (others.length > 0) {
      const tombstones = others.map((other) => markerTombstone(ledger.topic, partition, other));
      void outbox.write(tombstones).catch(() => {});
    }
    if (timedOut) log.warn({ partition }, 'previous owner did not release in time; taking over');
    const ms = Date.now() - (this.#acquiredAt.get(partition) ?? Date.now());
    const { size: entries } = reader.entries;
    log.info({ partition, entries, unreadable: reader.unreadable, ms }, 'partition acquired');
  }

  /**
   * What crashed holders may have had in hand is recovered (run again, and said so in the
   * marker); in a crash loop, one at a time (crash-guard.ts). What the group has committed
   * since is finished for good.
   */
  #recover(partition: number, reader: LedgerReader, crashed: readonly string[]): void {
    const guard = this.#options.leases.current(partition)?.guard;
    const inHand = reader.inHand(crashed);
    if (!guard || inHand.size === 0) return;
    const crashLoop = reader.recovering(crashed);
    const careful = reader.careful;
    const suspect = careful && crashed.includes(careful.instance) ? careful : undefined;
    void guard.takeOver(inHand, crashLoop, suspect);
    const { consumer, log } = this.#options;
    const what = { partition, crashed, inHand: Object.fromEntries(inHand) };
    if (crashLoop)
      log.warn(what, 'previous holder died recovering; running what it had in hand one at a time');
    else log.warn(what, 'previous holder crashed; running again what it had in hand');
    void consumer.committed([...inHand.keys()], partition).then(
      (committed) => {
        for (const [topic, offset] of committed) guard.committed(topic, BigInt(offset));
      },
      (error: unknown) => log.warn({ err: error, partition }, 'committed offsets unknown'),
    );
  }

  /**
   * Flushes, refuses further writes, commits, drops the entries, gives up the partition's share
   * of the budget, writes `released`.
   */
  async #release(partition: number): Promise<void> {
    const { outbox, ledger, instance, commitAndForget, log } = this.#options;
    const started = Date.now();
    this.#options.leases.current(partition)?.revoke();
    this.#readers.delete(partition);
    try {
      await outbox.drain();
      await commitAndForget(partition);
      ledger.drop(partition);
      // Before the marker: the next owner takes the share once it reads the marker.
      this.#giveUpShare(partition);
      const marker: OwnershipMarker = { kind: 'released', instance, nonce: randomUUID() };
      await outbox.write([markerRecord(ledger.topic, partition, marker)]);
      log.info({ partition, ms: Date.now() - started }, 'partition released');
    } catch (error) {
      log.error({ err: error, partition }, 'partition handover failed');
    }
    this.#options.leases.close(partition);
    this.#dispatch(partition, { type: 'released' });
  }

  #startTimer(partition: number, timer: Timer, ms: number): void {
    const key = `${partition}:${timer}`;
    clearTimeout(this.#timers.get(key));
    this.#timers.set(
      key,
      setTimeout(() => {
        this.#timers.delete(key);
        this.#dispatch(partition, TIMER_EVENTS[timer]);
      }, ms),
    );
  }

  #cancelTimer(partition: number, timer: Timer): void {
    const key = `${partition}:${timer}`;
    clearTimeout(this.#timers.get(key));
    this.#timers.delete(key);
  }

  #trackFirstRestore(partitions: readonly number[]): void {
    let resolve: () => void = () => {};
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    this.#firstRestore = { unsettled: new Set(partitions), done, resolve };
    if (partitions.length === 0) resolve();
  }

  #settle(partition: number): void {
    const first = this.#firstRestore;
    if (first?.unsettled.delete(partition) && first.unsettled.size === 0) first.resolve();
  }

  #forget(partition: number): void {
    this.#states.delete(partition);
    this.#options.leases.close(partition);
    this.#readers.delete(partition);
    this.#acquiredAt.delete(partition);
    for (const timer of Object.keys(TIMER_EVENTS) as Timer[]) this.#cancelTimer(partition, timer);
    this.#settle(partition);
    this.#checkGone();
  }

  #checkGone(): void {
    if (!this.#stopping || this.#states.size > 0) return;
    for (const resolve of this.#whenGone.splice(0)) resolve();
  }

  #isRestoring(partition: number): boolean {
    const phase = this.#states.get(partition)?.phase;
    return phase === 'reading' || phase === 'awaiting';
  }

  #fetch(): void {
    const phases = new Map<number, Phase>(
      this.#assigned.map((p) => [p, this.#states.get(p)?.phase ?? 'pending']),
    );
    const { consumer, topics } = this.#options;
    const { all, topics: held } = this.#holds;
    const holds: Holds = this.#stopping
      ? { all: new Set([...all, 'stopping']), topics: held }
      : this.#holds;
    const plan = fetchPlan(phases, topics, holds);
    consumer.pause(plan.pause);
    consumer.resume(plan.resume);
  }
}

function released(partition: number): PartitionReleased {
  return new PartitionReleased(`partition ${partition} released`, { details: { partition } });
}

function unwritable(topic: string, partition: number, cause: unknown): LedgerUnwritable {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new LedgerUnwritable(
    `the ledger topic ${topic} refused this instance's records (partition ${partition}): ${reason}; the bridge does not run without writing its ledger`,
    { details: { topic, partition }, cause },
  );
}
