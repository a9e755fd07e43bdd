/**
 * The driver of every owned partition (Kafka Streams' TaskManager in shape): one map of tasks
 * (partition-task.ts), each holding everything of its partition. It turns assignments, ledger
 * records, acknowledgements and timers into events of the task's machine (partition-machine.ts),
 * applies the decisions the machine returns, and after each step tells the consumer what to
 * fetch (fetch-plan.ts). It also keeps this instance's lease on them (lease.ts): the group's
 * answers renew it; when it ends, every task is lost at once.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  type KafkaWriteFailed,
  LedgerUnwritable,
  OutboxClosed,
  PartitionReleased,
} from '../errors.js';
import type { FetchedBatch, GroupConsumer, PartitionPosition } from '../kafka/index.js';
import {
  type Ledger,
  LedgerReader,
  markerRecord,
  markerTombstone,
  type OwnershipMarker,
} from '../ledger/index.js';
import type { Outbox } from '../producers/index.js';
import { backoffCap } from '../retry/backoff.js';
import { sleep } from '../retry/retry.js';
import { currentLogs, type LogExtent, type Logs, renewedTopics, seenLogs } from './command-logs.js';
import { CrashGuard } from './crash-guard.js';
import { fetchPlan, type Holds } from './fetch-plan.js';
import type { Lease, LeaseDecision, LeaseEvent, LoseReason } from './lease.js';
import { LedgerUpkeep } from './ledger-upkeep.js';
import { OffsetCommitter } from './offset-committer.js';
import {
  type Decision,
  isRestoring,
  NEW_PARTITION,
  type PartitionEvent,
  type Phase,
  type Settings,
  type Timer,
} from './partition-machine.js';
import { PartitionTask } from './partition-task.js';

export interface PartitionsOptions {
  readonly consumer: Pick<
    GroupConsumer,
    | 'liveInstances'
    | 'committed'
    | 'positions'
    | 'offsetForTime'
    | 'seek'
    | 'commit'
    | 'pause'
    | 'resume'
  >;
  readonly instance: string;
  readonly topics: { readonly commands: readonly string[]; readonly ledger: string };
  readonly ledger: Ledger;
  readonly outbox: Outbox;
  /** This instance's lease on its partitions, which this driver keeps (lease.ts). */
  readonly lease: Lease;
  /** Drops the partition's queued commands (and those waiting to retry): the next owner runs them. */
  readonly clearQueued: (partition: number) => void;
  /**
   * The ledger topic refused this instance's `acquired` marker for good: the partition stays
   * blocked (nothing of it runs) until it is revoked.
   */
  readonly onLedgerUnwritable: (error: LedgerUnwritable) => void;
  /**
   * The ledger refuses what may be in hand until someone acts (an ACL, the clock): the crash
   * guard writes it again until it goes (crash-guard.ts), and nothing of the partition runs
   * meanwhile; the bridge is not ready.
   */
  readonly onLedgerHeld?: (error: KafkaWriteFailed) => void;
  /**
   * How many partitions this instance holds for the platform budget, each time that changes: a
   * partition counts from the moment it turns active until its release gives it up, just before
   * its `released` marker is written (docs/design.md, "Circuit breaker and rate limit").
   */
  readonly onShareChange?: (held: number) => void;
  /** The lease ended and every partition was given up, or the group answered again after that. */
  readonly onLease?: (event: { held: boolean; reason?: LoseReason }) => void;
  /**
   * Exactly-once: takes the transactional id of another instance (Kafka's fencing), so that a
   * transaction it left open is aborted and none of it can be committed any more. A previous
   * holder that never released a partition is fenced before the partition is taken over.
   * Absent in at-least-once mode, whose producers have no such id.
   */
  readonly fence?: (instance: string) => Promise<void>;
  readonly settings: Omit<Settings, 'fencesHolders'> & {
    readonly crashLoopLimit: number;
    /** LEDGER_REPLAY_WINDOW (ledger-upkeep.ts). */
    readonly ledgerWindowMs: number;
  };
  readonly log: Logger;
}

/**
 * How often, while a partition is careful after a crash loop, the group is asked whether the
 * holders suspected of dying are back (crash-guard.ts): one describeGroup for every partition.
 */
const SUSPECT_POLL_MS = 2_000;

/**
 * How long an acquisition may go without taking over before it is said, and said again: its
 * waits (the group's members, the ledger's checkpoint, the `acquired` marker's write, the ledger
 * read back) have no deadline of their own, and one that never ends left the partition's
 * commands unrun without a word.
 */
const ACQUIRING_WARN_MS = 30_000;

/** Between attempts to fence a previous holder while Kafka cannot be asked. */
const FENCE_RETRY = { initialDelayMs: 500, maxDelayMs: 5_000, multiplier: 2 } as const;

const TIMER_EVENTS: Record<Timer, PartitionEvent> = {
  handover: { type: 'handover-timed-out' },
  drain: { type: 'drain-timed-out' },
  'abort-grace': { type: 'abort-grace-over' },
};

export class Partitions {
  readonly #options: PartitionsOptions;
  readonly #tasks = new Map<number, PartitionTask>();
  // The partition numbers the group assigned to this member, last time it said.
  #assigned: readonly number[] = [];
  #holds: Holds = { all: new Set(), topics: new Set() };
  #stopping: { drainMs: number } | undefined;
  #firstRestore: { done: Promise<void>; resolve: () => void } | undefined;
  #whenGone: Array<() => void> = [];
  #leaseTimer: NodeJS.Timeout | undefined;
  #suspectTimer: NodeJS.Timeout | undefined;
  readonly #upkeep: LedgerUpkeep;
  readonly #committer: OffsetCommitter;
  readonly #settings: Settings;
  // Fences under way, by instance: the partitions one holder left are fenced together.
  readonly #fences = new Map<string, Promise<void>>();
  // Counts the lease's regains: an acquisition deferred by one (a heartbeat's, waiting for the
  // committed offsets) is dropped once a later regain has acquired the assignment itself.
  #regains = 0;

  constructor(options: PartitionsOptions) {
    this.#options = options;
    this.#settings = { ...options.settings, fencesHolders: options.fence !== undefined };
    const { consumer, ledger, outbox, settings, log } = options;
    this.#upkeep = new LedgerUpkeep({
      consumer,
      ledger,
      outbox,
      windowMs: settings.ledgerWindowMs,
      log,
    });
    this.#committer = new OffsetCommitter({ consumer, lease: options.lease, log });
  }

  get assigned(): readonly number[] {
    return this.#assigned;
  }

  /**
   * What this member claims at its next join: its assignment while the lease holds, nothing once
   * it may have lost it (a member back from a stall takes only what it is given now).
   */
  held(): readonly number[] {
    return this.#options.lease.holds() ? this.#assigned : [];
  }

  /** The task of a partition this instance holds now; undefined when it holds none. */
  task(partition: number): PartitionTask | undefined {
    return this.#tasks.get(partition);
  }

  /** Settles once the partitions of the first assignment are active (or given up). */
  whenRestored(): Promise<void> {
    return this.#firstRestore?.done ?? Promise.resolve();
  }

  /**
   * The member joined the group with these partitions. A lease that ran out unnoticed (the
   * process was frozen) is given up first; the join then renews it, and after a loss the whole
   * assignment is acquired afresh.
   */
  onAssignment(partitions: readonly number[]): void {
    const now = performance.now();
    this.#leaseEvent({ type: 'due', at: now }, 'join');
    this.#assign(partitions);
    this.#leaseEvent({ type: 'answered', at: now }, 'join');
  }

  /** The coordinator accepted a heartbeat: the lease is renewed (lease.ts). */
  onHeartbeat(): void {
    this.#leaseEvent({ type: 'answered', at: performance.now() }, 'heartbeat');
  }

  /** The group consumer crashed: it left the group, so every partition is lost at once. */
  onCrash(): void {
    this.#leaseEvent({ type: 'crashed' }, 'crash');
  }

  #assign(partitions: readonly number[]): void {
    const previous = new Set(this.#assigned);
    this.#assigned = partitions;
    // Lost: nothing is held, and the whole assignment is acquired when the lease is regained.
    if (this.#options.lease.lost) return;
    const { handoverTimeoutMs } = this.#options.settings;
    for (const partition of previous) {
      if (!partitions.includes(partition)) {
        this.#dispatch(partition, { type: 'revoked', drainMs: handoverTimeoutMs / 2 });
      }
    }
    const fresh = partitions.filter((p) => !previous.has(p));
    for (const partition of fresh) {
      if (this.#tasks.has(partition)) this.#dispatch(partition, { type: 'assigned' });
      else this.#open(partition);
    }
    const pending = fresh.map((p) => this.#tasks.get(p)).filter((t) => t?.phase === 'pending');
    if (!this.#firstRestore) this.#trackFirstRestore(pending as PartitionTask[]);
    this.#learnMembers(pending.map((t) => t?.partition as number));
    this.#fetch();
  }

  onLedgerBatch(batch: FetchedBatch): void {
    const task = this.#tasks.get(batch.partition);
    const reader = task?.reader;
    const last = batch.records.at(-1);
    if (!task || !reader || !task.restoring || last === undefined) return;
    for (const record of batch.records) {
      const fact = reader.apply(record);
      if (fact?.kind === 'own-marker-read') {
        this.#dispatch(task.partition, { type: 'own-marker-read', holders: fact.holders });
      } else if (fact?.kind === 'holder-released') {
        this.#dispatch(task.partition, { type: 'holder-released', instance: fact.instance });
      } else if (fact?.kind === 'own-active-read') {
        this.#dispatch(task.partition, { type: 'own-active-read' });
      }
      if (!task.restoring) break;
    }
    batch.resolve(last.offset);
  }

  /** Holds consumption back while the circuit is open, or lets it go on. */
  holdForBreaker(on: boolean): void {
    this.#hold('breaker', on);
  }

  /**
   * A co-partitioned topic's partition count changed (partition-watch.ts): the command
   * partitions from `from` (the count at start) on are not consumed any more, since their bizIds'
   * ledger entries are elsewhere; the ones below drain. Only a restart after `topics grow` lifts
   * it.
   */
  holdForRepartition(from: number): void {
    this.#holds = { ...this.#holds, unplaceableFrom: from };
    this.#fetch();
  }

  /** The command topics held back for backpressure. */
  holdTopics(topics: ReadonlySet<string>): void {
    this.#holds = { ...this.#holds, topics };
    this.#fetch();
  }

  /** Commits what every task finished (offset-committer.ts). */
  commit(): Promise<void> {
    return this.#committer.commit([...this.#tasks.values()]);
  }

  /**
   * The key has room again for the topic's commands: each active partition that left records of
   * it in Kafka, and whose fetch has passed the first of them, fetches from there again. Returns
   * the partitions moved back.
   */
  rewind(topic: string, key: string): number[] {
    const moved: number[] = [];
    for (const task of this.#tasks.values()) {
      const offset = task.canStart ? task.rewindFor(topic, key) : undefined;
      if (offset === undefined) continue;
      this.#options.consumer.seek(topic, task.partition, offset);
      moved.push(task.partition);
    }
    return moved;
  }

  /** Fetches the command partition from `offset` on. */
  seek(topic: string, partition: number, offset: string): void {
    this.#options.consumer.seek(topic, partition, offset);
  }

  /** Keys with records left in Kafka, per command topic, in every partition held. */
  heldKeys(): Map<string, number> {
    const held = new Map<string, number>();
    for (const topic of this.#options.topics.commands) {
      let count = 0;
      for (const task of this.#tasks.values()) count += task.heldKeys(topic);
      held.set(topic, count);
    }
    return held;
  }

  /** Up to `limit` keys with records left in Kafka, with where: computed when asked (/status). */
  heldKeyNames(limit: number): Array<{ topic: string; partition: number; key: string }> {
    const found: Array<{ topic: string; partition: number; key: string }> = [];
    for (const [partition, task] of this.#tasks) {
      for (const topic of this.#options.topics.commands) {
        for (const key of task.heldKeyNames(topic, limit - found.length)) {
          found.push({ topic, partition, key });
        }
        if (found.length >= limit) return found;
      }
    }
    return found;
  }

  /** The offset after the highest one in hand of a command partition; undefined: none. */
  nextInHand(topic: string, partition: number): bigint | undefined {
    return this.#tasks.get(partition)?.nextInHand(topic);
  }

  /**
   * A record of the topic was fetched below what the task had committed: the partition's log of
   * it went back under this instance (the topic was deleted and created again, kafkajs moving to
   * its start; or a broker lost records). What the tasks hold of that topic speaks of another
   * log, and a command of it finishing would finish an offset of the new one. The topic is read
   * on every partition this instance holds, and another partition's fetch may not have noticed
   * yet (its old position still within the new log), so each is given up at once, writing and
   * committing nothing (as when the lease ends), and acquired afresh from the group's committed
   * offsets (Kafka deleted the topic's with it: its start), whose take-over tells the logs apart
   * (command-logs.ts).
   */
  logWentBack(task: PartitionTask, topic: string, offset: string): void {
    if (this.#tasks.get(task.partition) !== task || task.phase !== 'active') return;
    const partitions = [...this.#tasks.values()]
      .filter((t) => t.phase === 'active')
      .map((t) => t.partition);
    this.#options.log.warn(
      { topic, partition: task.partition, offset, partitions },
      "a command topic's log went back under this instance (deleted and created again?): its partitions are given up and acquired afresh",
    );
    for (const partition of partitions) this.#dispatch(partition, { type: 'lost' });
    void this.#rewindToCommitted(partitions).then(() => {
      if (this.#stopping || this.#options.lease.lost) return;
      const again = partitions.filter((p) => this.#assigned.includes(p) && !this.#tasks.has(p));
      for (const partition of again) this.#open(partition);
      this.#learnMembers(again);
      this.#fetch();
    });
  }

  /** Sweeps the ledger of every active partition (ledger-upkeep.ts); call every sweep interval. */
  upkeep(): void {
    const { topic } = this.#options.ledger;
    for (const task of this.#tasks.values()) {
      if (task.phase !== 'active') continue;
      void task.sweepOnce(() => this.#upkeep.sweep(task, task.marks(topic)));
    }
  }

  /** Releases every partition, giving running commands `drainMs` to finish; takes nothing new. */
  releaseAll(drainMs: number): Promise<void> {
    clearTimeout(this.#leaseTimer);
    clearTimeout(this.#suspectTimer);
    this.#stopping = { drainMs };
    const gone = new Promise<void>((resolve) => this.#whenGone.push(resolve));
    this.#hold('stopping', true);
    for (const partition of [...this.#tasks.keys()]) {
      this.#dispatch(partition, { type: 'stop', drainMs });
    }
    this.#checkGone();
    return gone;
  }

  #leaseEvent(event: LeaseEvent, via: 'join' | 'heartbeat' | 'crash'): void {
    for (const decision of this.#options.lease.step(event)) this.#applyLease(decision, via);
  }

  #applyLease(decision: LeaseDecision, via: 'join' | 'heartbeat' | 'crash'): void {
    switch (decision.do) {
      case 'due-at':
        clearTimeout(this.#leaseTimer);
        if (this.#stopping) return;
        this.#leaseTimer = setTimeout(
          () => this.#leaseEvent({ type: 'due', at: performance.now() }, via),
          Math.max(0, decision.at - performance.now()),
        );
        break;
      case 'lose-all':
        this.#loseAll(decision.reason);
        break;
      case 'regain':
        this.#regain(via);
        break;
    }
  }

  /**
   * Every task is lost at once, writing nothing (partition-machine.ts, `lost`): whoever the group
   * gives the partitions to may already be acting for them.
   */
  #loseAll(reason: LoseReason): void {
    clearTimeout(this.#leaseTimer);
    const lost = [...this.#tasks.keys()];
    const { log, onLease, lease } = this.#options;
    log.warn(
      { reason, partitions: lost, leaseMs: lease.leaseMs },
      reason === 'crashed'
        ? 'lease lost: the Kafka consumer crashed and left the group; every partition given up, nothing written'
        : 'lease lost: the group coordinator has not answered this instance for too long; every partition given up, nothing written',
    );
    for (const partition of lost) this.#dispatch(partition, { type: 'lost' });
    onLease?.({ held: false, reason });
  }

  /**
   * The coordinator answers again: the assignment is acquired afresh. Still the same membership
   * (a heartbeat), kafkajs fetches on from where it was, past the records dropped with the lost
   * tasks: each command partition is first moved back to the group's committed offset.
   */
  #regain(via: 'join' | 'heartbeat' | 'crash'): void {
    const { log, onLease } = this.#options;
    log.info(
      { partitions: this.#assigned, via },
      'lease regained: acquiring the assignment afresh',
    );
    onLease?.({ held: true });
    const regain = ++this.#regains;
    const current = () => regain === this.#regains;
    const acquire = () => {
      // Lost again meanwhile: the next regain acquires them. Lost and regained meanwhile (by a
      // join): that regain acquired them, and a task it opened must not be replaced.
      if (this.#options.lease.lost || !current() || this.#stopping) return;
      // What the group assigns now, and what nothing acquired meanwhile (a rebalance while the
      // offsets were asked for acquires what it adds itself, and may have taken some away).
      const partitions = this.#assigned.filter((p) => !this.#tasks.has(p));
      for (const partition of partitions) this.#open(partition);
      this.#learnMembers(partitions);
      this.#fetch();
    };
    if (via === 'heartbeat') {
      const partitions = this.#assigned.filter((p) => !this.#tasks.has(p));
      void this.#rewindToCommitted(partitions, current).then(acquire);
    } else acquire();
  }

  /**
   * Fetches each command partition from the group's committed offset, or its start. Asked again
   * until Kafka answers (a broker restarting, say): acquiring without it would leave the records
   * dropped with the lost tasks unread for good. Gives up only when the lease is lost again, the
   * bridge stops, or `current` says the caller's acquisition is superseded (the answer may come
   * after a later regain's tasks fetch), and the caller then acquires nothing.
   */
  async #rewindToCommitted(
    partitions: readonly number[],
    current: () => boolean = () => true,
  ): Promise<void> {
    const { consumer, topics, log } = this.#options;
    const going = () => !this.#stopping && !this.#options.lease.lost && current();
    for (let attempt = 0; going(); attempt++) {
      try {
        const positions = await consumer.positions(topics.commands);
        if (!going()) return;
        for (const { topic, partition, committed, logStart } of positions) {
          if (partitions.includes(partition))
            consumer.seek(topic, partition, committed ?? logStart);
        }
        return;
      } catch (error) {
        const delayMs = Math.min(5_000, 250 * 2 ** attempt);
        log.warn(
          { err: error, attempt, delayMs },
          'committed offsets unknown after the lease was regained; asking again',
        );
        await sleep(delayMs);
      }
    }
  }

  /**
   * A new acquisition's task, watched: every ACQUIRING_WARN_MS it has not taken over (nor been
   * given up), which phase it waits in is said.
   */
  #newTask(partition: number): PartitionTask {
    const task = new PartitionTask(partition, NEW_PARTITION, this.#options.lease);
    const started = performance.now();
    const watch = () => {
      const { phase } = task;
      if (this.#tasks.get(partition) !== task || !isAcquiring(phase) || this.#stopping) return;
      this.#options.log.warn(
        { partition, phase, ms: Math.round(performance.now() - started) },
        `partition not acquired yet: still ${phase} (its commands are not fetched meanwhile)`,
      );
      setTimeout(watch, ACQUIRING_WARN_MS).unref?.();
    };
    setTimeout(watch, ACQUIRING_WARN_MS).unref?.();
    return task;
  }

  /** A task for a partition assigned anew; one assigned while stopping is let go at once. */
  #open(partition: number): void {
    this.#tasks.set(partition, this.#newTask(partition));
    if (this.#stopping) this.#dispatch(partition, { type: 'stop', ...this.#stopping });
  }

  #hold(hold: 'breaker' | 'stopping', on: boolean): void {
    const all = new Set(this.#holds.all);
    if (on) all.add(hold);
    else all.delete(hold);
    this.#holds = { ...this.#holds, all };
    this.#fetch();
  }

  #dispatch(partition: number, event: PartitionEvent): void {
    const task = this.#tasks.get(partition);
    if (!task) return;
    const decisions = task.step(event, this.#settings);
    this.#followShare(task);
    for (const decision of decisions) this.#apply(task, decision);
    this.#fetch();
  }

  /**
   * A partition's share is taken when it turns active (only after its previous holder gave its
   * share up and said so, or left the group) and kept while it drains, until #release gives it up.
   */
  #followShare(task: PartitionTask): void {
    const { phase } = task;
    if (phase === 'active' && !task.sharing) {
      task.sharing = true;
      this.#shareChanged();
    } else if (phase !== 'active' && phase !== 'draining' && phase !== 'releasing') {
      this.#giveUpShare(task);
    }
  }

  #giveUpShare(task: PartitionTask): void {
    if (!task.sharing) return;
    task.sharing = false;
    this.#shareChanged();
  }

  #shareChanged(): void {
    const held = [...this.#tasks.values()].filter((task) => task.sharing).length;
    this.#options.onShareChange?.(held);
  }

  #apply(task: PartitionTask, decision: Decision): void {
    const { partition } = task;
    switch (decision.do) {
      case 'learn-members':
        this.#renew(task);
        break;
      case 'write-acquired':
        this.#writeAcquired(task, decision.nonce);
        break;
      case 'start-timer':
        task.startTimer(decision.timer, decision.ms, () =>
          this.#dispatch(partition, TIMER_EVENTS[decision.timer]),
        );
        break;
      case 'cancel-timer':
        task.cancelTimer(decision.timer);
        break;
      case 'fence':
        void this.#fence(task, decision.instances);
        break;
      case 'write-active':
        task.activate();
        break;
      case 'take-over':
        this.#takeOver(task, decision.timedOut, decision.crashed);
        break;
      case 'drop-queued':
        this.#options.clearQueued(partition);
        break;
      case 'watch-runs':
        void task.whenIdle().then(() => this.#dispatch(partition, { type: 'runs-idle' }));
        break;
      case 'abort-runs':
        task.abortRuns(this.#options.lease.lost ? lost(partition) : released(partition));
        break;
      case 'drop-entries':
        this.#options.ledger.drop(partition);
        break;
      case 'release':
        void this.#release(task);
        break;
      case 'report-unwritable':
        this.#options.onLedgerUnwritable(
          unwritable(this.#options.ledger.topic, partition, decision.error),
        );
        break;
      case 'settle':
        this.#settle(task);
        break;
      case 'forget':
        this.#forget(task);
        break;
    }
  }

  /** Released and assigned again meanwhile: a new acquisition, so a new task. */
  #renew(task: PartitionTask): void {
    task.close();
    this.#tasks.set(task.partition, this.#newTask(task.partition));
    this.#learnMembers([task.partition]);
  }

  /**
   * Learns the group's members, where each partition's ledger restore starts, and the command
   * topics' logs its take-over compares with what its ledger has seen (command-logs.ts).
   */
  #learnMembers(partitions: readonly number[]): void {
    if (partitions.length === 0) return;
    const { consumer, log, topics } = this.#options;
    const live = this.#members('waiting for every holder');
    const logs = consumer.positions(topics.commands).catch((error: unknown) => {
      log.warn({ err: error }, "command topics' logs unknown; their ledger marks are kept as read");
      return undefined;
    });
    for (const partition of partitions) {
      const positioned = this.#upkeep.position(partition);
      void Promise.all([live, positioned, logs]).then(([members, , found]) => {
        const task = this.#tasks.get(partition);
        if (task && found) task.logsFound = logsOf(found, partition);
        this.#dispatch(partition, { type: 'members-known', live: members, nonce: randomUUID() });
      });
    }
  }

  #writeAcquired(task: PartitionTask, nonce: string): void {
    const { instance, ledger, outbox, settings, onLedgerUnwritable } = this.#options;
    const { partition } = task;
    const marker: OwnershipMarker = { kind: 'acquired', instance, nonce };
    const guard = new CrashGuard({
      partition,
      ledgerTopic: ledger.topic,
      marker,
      outbox,
      owner: task,
      maxDeaths: settings.crashLoopLimit,
      onRefused: (error) => onLedgerUnwritable(unwritable(ledger.topic, partition, error)),
      onHeld: (error) => this.#options.onLedgerHeld?.(error),
      liveInstances: () => this.#members('the suspect is not dead-lettered now'),
    });
    task.acquire(
      guard,
      new LedgerReader({ instance, nonce }, this.#options.ledger.newStore(partition)),
      performance.now(),
    );
    outbox.write([markerRecord(ledger.topic, partition, marker)], task).then(
      () => this.#dispatch(partition, { type: 'marker-written' }),
      (error: unknown) =>
        this.#dispatch(
          partition,
          error instanceof OutboxClosed || error instanceof PartitionReleased
            ? { type: 'marker-abandoned' }
            : { type: 'marker-refused', error },
        ),
    );
  }

  /**
   * Takes the transactional ids of the holders that never released the partition, trying again
   * while Kafka cannot be asked, until done or the partition is no longer fencing (revoked, lost).
   */
  async #fence(task: PartitionTask, instances: readonly string[]): Promise<void> {
    const { partition } = task;
    const fencing = () => this.#tasks.get(partition) === task && task.phase === 'fencing';
    const started = performance.now();
    for (let attempt = 0; fencing(); attempt++) {
      try {
        await Promise.all(instances.map((instance) => this.#fenceOnce(instance)));
        const ms = Math.round(performance.now() - started);
        this.#options.log.info(
          { partition, instances, ms },
          'previous holder fenced: a transaction it left open can no longer be committed',
        );
        this.#dispatch(partition, { type: 'fenced' });
        return;
      } catch (error) {
        const delayMs = backoffCap(FENCE_RETRY, attempt);
        this.#options.log.warn(
          { err: error, partition, instances, delayMs },
          'previous holder not fenced yet; the partition waits (exactly-once: a transaction it left open could still be committed)',
        );
        await sleep(delayMs);
      }
    }
  }

  #fenceOnce(instance: string): Promise<void> {
    const { fence } = this.#options;
    if (!fence) return Promise.resolve();
    let fencing = this.#fences.get(instance);
    if (!fencing) {
      fencing = fence(instance).finally(() => this.#fences.delete(instance));
      this.#fences.set(instance, fencing);
    }
    return fencing;
  }

  #takeOver(task: PartitionTask, timedOut: boolean, crashed: readonly string[]): void {
    const { reader, partition } = task;
    task.dropReader();
    if (!reader) return;
    const { ledger, outbox, log } = this.#options;
    task.activate();
    ledger.adopt(partition, reader.entries, task.acquisition as string);
    const renewed = this.#adoptLogs(task, reader);
    for (const [topic, offset] of reader.forwarded) {
      if (!renewed.includes(topic)) task.markForwarded(topic, offset);
    }
    if (renewed.length > 0) {
      void outbox.write([task.forwardedRecord(ledger.topic)], task).catch(() => {});
    }
    if (crashed.length > 0) this.#recover(task, reader, crashed, renewed);
    const others = reader.otherInstances();
    // Housekeeping: their ownership is over, so their markers can go.
    if (others.length > 0) {
      const tombstones = others.map((other) => markerTombstone(ledger.topic, partition, other));
      void outbox.write(tombstones, task).catch(() => {});
    }
    if (timedOut) log.warn({ partition }, 'previous owner did not release in time; taking over');
    const ms = Math.round(performance.now() - task.acquiredAt);
    const { size: entries } = reader.entries;
    const { unreadable, stale } = reader;
    log.info({ partition, entries, unreadable, stale, ms }, 'partition acquired');
  }

  /**
   * The command topics' logs, as found before the restore, against what the partition's ledger
   * has seen of them (command-logs.ts): the topics whose log is another one (created again) are
   * returned, and what the ledger says of positions in them is not taken over. The logs as they
   * stand are written at once, so a crash now leaves them known.
   */
  #adoptLogs(task: PartitionTask, reader: LedgerReader): readonly string[] {
    const { ledger, outbox, log } = this.#options;
    const { partition } = task;
    const seen = seenLogs(reader.logs, reader.inHand(reader.otherInstances()), reader.forwarded);
    const found = task.logsFound ?? new Map();
    const renewed = renewedTopics(seen, found);
    task.adoptLogs(currentLogs(seen, found, renewed));
    const logs = task.logsRecord(ledger.topic);
    if (logs) void outbox.write([logs], task).catch(() => {});
    for (const topic of renewed) {
      const was = seen.get(topic);
      const is = found.get(topic);
      log.warn(
        {
          partition,
          topic,
          seen: { start: String(was?.start), end: String(was?.end) },
          found: { start: String(is?.start), end: String(is?.end) },
        },
        "command topic's log is not the one the ledger saw (it starts or ends before): the topic was deleted and created again, or a broker lost records; the ledger's marks of positions in it (forwarded, in hand) are dropped",
      );
    }
    return renewed;
  }

  /**
   * What crashed holders may have had in hand is recovered (run again, and said so in the
   * marker); in a crash loop, one run at a time (crash-guard.ts). What the group has committed
   * since is finished for good. Nothing of a topic whose log was created again since.
   */
  #recover(
    task: PartitionTask,
    reader: LedgerReader,
    crashed: readonly string[],
    renewed: readonly string[],
  ): void {
    const { partition } = task;
    const inHand = reader.inHand(crashed);
    for (const topic of renewed) inHand.delete(topic);
    if (inHand.size === 0) return;
    // Those that died recovering: a crash loop, unless they come back (crash-guard.ts).
    const suspects = crashed.filter((instance) => reader.recovering([instance]));
    const careful = reader.careful;
    const suspect =
      careful && crashed.includes(careful.instance) && !renewed.includes(careful.topic)
        ? careful
        : undefined;
    if (!task.recover(inHand, suspects, suspect)) return;
    const { consumer, log } = this.#options;
    const what = { partition, crashed, inHand: Object.fromEntries(inHand) };
    if (suspects.length > 0) {
      log.warn(
        { ...what, suspects },
        'previous holder died recovering (unless it only stalled: it is looked for in the group); running the partition one at a time',
      );
      this.#lookForSuspects();
    } else log.warn(what, 'previous holder crashed; running again what it had in hand');
    void consumer.committed([...inHand.keys()], partition).then(
      (committed) => {
        for (const [topic, { offset }] of committed) task.committedSince(topic, BigInt(offset));
      },
      (error: unknown) => log.warn({ err: error, partition }, 'committed offsets unknown'),
    );
  }

  /**
   * While a partition is careful after a crash loop, asks the group every SUSPECT_POLL_MS (once
   * for all of them) whether the holders suspected of dying are in it again: such a one stalled,
   * it did not die, and care for it ends at once (crash-guard.ts).
   */
  #lookForSuspects(): void {
    if (this.#suspectTimer !== undefined || this.#stopping) return;
    this.#suspectTimer = setTimeout(() => void this.#askForSuspects(), SUSPECT_POLL_MS);
  }

  async #askForSuspects(): Promise<void> {
    const careful = () => [...this.#tasks.values()].filter((task) => task.careful);
    const live = careful().length > 0 ? await this.#members('asked again shortly') : undefined;
    for (const task of careful()) {
      for (const instance of live ? task.seen(live) : []) {
        this.#options.log.info(
          { partition: task.partition, instance, careful: task.careful },
          `suspected crash loop cleared: ${instance} is back in the group (it stalled, it did not die)`,
        );
      }
    }
    this.#suspectTimer = undefined;
    if (careful().length > 0) this.#lookForSuspects();
  }

  /** The group members' instance ids; undefined (and said) when the group could not be asked. */
  #members(meanwhile: string): Promise<ReadonlySet<string> | undefined> {
    return this.#options.consumer.liveInstances().catch((error: unknown) => {
      this.#options.log.warn({ err: error }, `group members unknown; ${meanwhile}`);
      return undefined;
    });
  }

  /**
   * Flushes, commits, drops the entries, gives up the partition's share of the budget, writes
   * `released`. Its writes are refused from the start: the task is releasing.
   */
  async #release(task: PartitionTask): Promise<void> {
    const { outbox, ledger, instance, log } = this.#options;
    const { partition } = task;
    const started = performance.now();
    task.dropReader();
    try {
      await outbox.drain();
      await this.#committer.commit([task]);
      ledger.drop(partition);
      // Before the marker: the next owner takes the share once it reads the marker.
      this.#giveUpShare(task);
      const marker: OwnershipMarker = { kind: 'released', instance, nonce: randomUUID() };
      // The logs as this acquisition saw them last: the next owner tells a topic created again.
      const logs = task.logsRecord(ledger.topic);
      await outbox.write([...(logs ? [logs] : []), markerRecord(ledger.topic, partition, marker)]);
      log.info({ partition, ms: Math.round(performance.now() - started) }, 'partition released');
    } catch (error) {
      log.error({ err: error, partition }, 'partition handover failed');
    }
    this.#dispatch(partition, { type: 'released' });
  }

  #trackFirstRestore(tasks: readonly PartitionTask[]): void {
    let resolve: () => void = () => {};
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    this.#firstRestore = { done, resolve };
    for (const task of tasks) task.firstRestore = true;
    if (tasks.length === 0) resolve();
  }

  #settle(task: PartitionTask): void {
    if (!task.firstRestore) return;
    task.firstRestore = false;
    if (![...this.#tasks.values()].some((t) => t.firstRestore)) this.#firstRestore?.resolve();
  }

  #forget(task: PartitionTask): void {
    task.close();
    if (this.#tasks.get(task.partition) === task) this.#tasks.delete(task.partition);
    this.#settle(task);
    this.#checkGone();
  }

  #checkGone(): void {
    if (!this.#stopping || this.#tasks.size > 0) return;
    for (const resolve of this.#whenGone.splice(0)) resolve();
  }

  #fetch(): void {
    const phases = new Map<number, Phase>(
      this.#assigned.map((p) => [p, taskPhase(this.#tasks.get(p))]),
    );
    const plan = fetchPlan(phases, this.#options.topics, this.#holds);
    this.#options.consumer.pause(plan.pause);
    this.#options.consumer.resume(plan.resume);
  }
}

/** The command topics' logs of one partition number, from every partition's position. */
function logsOf(positions: readonly PartitionPosition[], partition: number): Logs {
  const logs = new Map<string, LogExtent>();
  for (const { topic, partition: p, logStart, highWatermark } of positions) {
    if (p === partition) logs.set(topic, { start: BigInt(logStart), end: BigInt(highWatermark) });
  }
  return logs;
}

/** The phases of an acquisition before it takes over (or is refused for good). */
function isAcquiring(phase: Phase | 'gone'): boolean {
  return phase === 'pending' || phase === 'marking' || isRestoring(phase);
}

/** A partition assigned without a task (let go while stopping) is fetched as a pending one. */
function taskPhase(task: PartitionTask | undefined): Phase {
  const phase = task?.phase ?? 'pending';
  return phase === 'gone' ? 'pending' : phase;
}

function released(partition: number): PartitionReleased {
  return new PartitionReleased(`partition ${partition} released`, { details: { partition } });
}

function lost(partition: number): PartitionReleased {
  return new PartitionReleased(
    `partition ${partition} lost: this instance's lease on it ended, so it no longer acts for it`,
    { details: { partition } },
  );
}

function unwritable(topic: string, partition: number, cause: unknown): LedgerUnwritable {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new LedgerUnwritable(
    `the ledger topic ${topic} refused this instance's records (partition ${partition}): ${reason}; the bridge does not run without writing its ledger`,
    { details: { topic, partition }, cause },
  );
}
