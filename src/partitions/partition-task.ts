/**
 * Everything this instance knows of one partition number it owns, for one acquisition, in one
 * object (Kafka Streams' StreamTask in shape): its phase in the partition machine, the commands
 * running on it, its offsets in hand, its crash guard, its forwarded marks, the ledger reader of
 * its restore, its timers, and whether it counts in the platform budget. The driver
 * (partitions.ts) creates it when the partition is assigned, feeds its machine events and applies
 * the decisions; intake, runner and publisher talk to it. Released, it is dropped: a new
 * acquisition of the same number is a new task, so a command left over from an earlier one never
 * writes under the new one.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { PartitionReleased } from '../errors.js';
import type { OutboundRecord } from '../kafka/index.js';
import {
  type CarefulRun,
  forwardedRecord,
  type LedgerReader,
  logsRecord,
} from '../ledger/index.js';
import { type Logs, logsValue, seenLogs } from './command-logs.js';
import type {
  CarefulTurnVerdict,
  CarefulVerdict,
  CrashGuard,
  GuardedRecord,
} from './crash-guard.js';
import { startedMarginMs } from './lease.js';
import { type Fate, PartitionOffsets, type TopicPartitionOffset } from './offsets.js';
import {
  type Decision,
  isRestoring,
  type PartitionEvent,
  type PartitionState,
  type Phase,
  type Settings,
  type Timer,
  transition,
} from './partition-machine.js';

/** How often a step waiting for more of the lease asks again (untilStartable). */
const LEASE_POLL_MS = 100;

/** Whether this instance's lease on its partitions holds now (lease.ts, kept by partitions.ts). */
export interface LeaseHolder {
  holds(): boolean;
  /** Whether it holds now and still will `marginMs` later, should no answer come meanwhile. */
  holdsFor(marginMs: number): boolean;
  readonly leaseMs: number;
}

export class PartitionTask {
  readonly partition: number;
  readonly #lease: LeaseHolder;
  // Undefined once it is gone (released, or given up before it was acquired).
  #state: PartitionState | undefined;
  #guard: CrashGuard | undefined;
  #reader: LedgerReader | undefined;
  #acquiredAt = 0;
  readonly #forwarded = new Map<string, bigint>();
  // The command topics' logs as the partition's ledger has seen them (command-logs.ts), once
  // taken over.
  #logs: Logs | undefined;
  readonly #offsets = new Map<string, PartitionOffsets>();
  readonly #timers = new Map<Timer, NodeJS.Timeout>();
  #running = 0;
  /**
   * The signal of the runs started since the last abort, shared: a release aborts them all
   * together, and an AbortController per run cost more than anything else in starting one.
   * Made when a run starts and none is at hand.
   */
  #runs: AbortController | undefined;
  #onIdle: Array<() => void> = [];
  #sweeping = false;
  /** Counted in this instance's share of the platform budget. */
  sharing = false;
  /** Of the first assignment, not yet active or given up: start-up waits for it. */
  firstRestore = false;
  /**
   * The command topics' logs of this partition as found before its restore (their start and
   * end), to tell at the take-over whether each is the one its ledger speaks of; undefined when
   * they could not be found.
   */
  logsFound: Logs | undefined;

  constructor(partition: number, state: PartitionState, lease: LeaseHolder) {
    this.partition = partition;
    this.#state = state;
    this.#lease = lease;
  }

  get phase(): Phase | 'gone' {
    return this.#state?.phase ?? 'gone';
  }

  /** Commands of it may start: exactly while it is active and this instance's lease holds. */
  get canStart(): boolean {
    return this.#state?.phase === 'active' && this.#lease.holds();
  }

  /**
   * Released (or gone), or its lease ended (read off the clock, so a thawed process refuses at
   * once, before its timers have given the partition up): its writes are refused.
   */
  get revoked(): boolean {
    return this.#state === undefined || this.#state.phase === 'releasing' || !this.#lease.holds();
  }

  /** The nonce of this acquisition (its marker's), once it is being marked. */
  get acquisition(): string | undefined {
    return this.#state?.nonce;
  }

  /** The acquisition takes the partition over: its marker says so (crash-guard.ts). */
  activate(): void {
    void this.#guard?.activate();
  }

  get restoring(): boolean {
    return isRestoring(this.phase);
  }

  /** The machine's next state for the event, kept; returns what to do. */
  step(event: PartitionEvent, settings: Settings): readonly Decision[] {
    if (this.#state === undefined) return [];
    const next = transition(this.#state, event, settings);
    this.#state = next.state;
    if (this.revoked) this.#settleIdle();
    return next.decisions;
  }

  /** @throws PartitionReleased once revoked: no new write is taken from its commands */
  assertWritable(): void {
    if (!this.revoked) return;
    throw new PartitionReleased(`partition ${this.partition} was released`, {
      details: { partition: this.partition },
    });
  }

  /**
   * Resolves once a platform step of this partition may be recorded `started`: its lease holds
   * with at least half of it left (lease.ts, startedMarginMs), so that the record's round trip
   * ends well before the lease could. Waits while less is left (the coordinator late with its
   * answers: a heartbeat renews it), asking again every LEASE_POLL_MS.
   * @throws PartitionReleased once revoked (the lease lost, the partition released)
   */
  async untilStartable(): Promise<void> {
    const margin = startedMarginMs(this.#lease.leaseMs);
    while (!this.#lease.holdsFor(margin)) {
      this.assertWritable();
      await delay(LEASE_POLL_MS);
    }
    this.assertWritable();
  }

  /**
   * @throws PartitionReleased once it is gone (lost, or released and dropped) or its lease ended:
   * what it wrote before is not sent then. While it is released, what its commands wrote before
   * still goes (the release flushes it).
   */
  assertSendable(): void {
    if (this.#state !== undefined && this.#lease.holds()) return;
    throw new PartitionReleased(`partition ${this.partition} is no longer this instance's`, {
      details: { partition: this.partition },
    });
  }

  // The acquisition: its marker's guard and the reader of its restore.

  acquire(guard: CrashGuard, reader: LedgerReader, now: number): void {
    this.#guard = guard;
    this.#reader = reader;
    this.#acquiredAt = now;
  }

  get acquiredAt(): number {
    return this.#acquiredAt;
  }

  get reader(): LedgerReader | undefined {
    return this.#reader;
  }

  /** The restore is over: the reader's state was taken over, or the partition is let go. */
  dropReader(): void {
    this.#reader = undefined;
  }

  /**
   * Takes over what crashed holders may have had in hand (crash-guard.ts); false when this task
   * holds no acquisition to recover into.
   */
  recover(
    inHand: ReadonlyMap<string, bigint>,
    suspects: readonly string[],
    suspect: CarefulRun | undefined,
  ): boolean {
    if (!this.#guard) return false;
    void this.#guard.takeOver(inHand, suspects, suspect);
    return true;
  }

  /** The group's committed offset of a topic, once known: what it passed is finished for good. */
  committedSince(topic: string, offset: bigint): void {
    this.#guard?.committed(topic, offset);
  }

  /**
   * Before records up to `lastOffset` of the topic run: resolves true once the marker says they
   * may be in hand (crash-guard.ts).
   */
  admit(topic: string, lastOffset: string, highWatermark?: string): Promise<boolean> | undefined {
    return this.#guard?.admit(topic, lastOffset, highWatermark);
  }

  /** Its runs go one at a time, after a crash loop (crash-guard.ts). */
  get careful(): boolean {
    return this.#guard?.careful ?? false;
  }

  /** Whether a run of the record may go now: as usual, alone, or once woken (crash-guard.ts). */
  carefulTurn(record: GuardedRecord): CarefulTurnVerdict {
    return this.#guard?.carefulTurn(record) ?? { go: 'as-usual' };
  }

  beforeCarefulRun(record: GuardedRecord): Promise<CarefulVerdict> {
    return this.#guard?.beforeCarefulRun(record) ?? Promise.resolve('run');
  }

  /** The instance ids in the group now; returns the suspects of a crash loop among them. */
  seen(live: ReadonlySet<string>): string[] {
    return this.#guard?.seen(live) ?? [];
  }

  /**
   * The partition's marks as they stand, which a sweep writes again (ledger-upkeep.ts): this
   * acquisition's ownership marker, the forwarded mark and the command logs.
   */
  marks(ledgerTopic: string): OutboundRecord[] {
    const logs = this.logsRecord(ledgerTopic);
    return [
      ...(this.#guard ? [this.#guard.markerRecord()] : []),
      ...(this.#forwarded.size > 0 ? [this.forwardedRecord(ledgerTopic)] : []),
      ...(logs ? [logs] : []),
    ];
  }

  forwardedRecord(ledgerTopic: string): OutboundRecord {
    return forwardedRecord(ledgerTopic, this.partition, this.#forwarded, this.acquisition);
  }

  /** The command topics' logs taken over from the partition's ledger (command-logs.ts). */
  adoptLogs(logs: Logs): void {
    this.#logs = logs;
  }

  /**
   * The command topics' logs as this acquisition has seen them: as taken over, their ends raised
   * past what it took in hand and forwarded since. Undefined before it took the partition over:
   * it knows nothing of them, and must not write over what the ledger knows.
   */
  logsRecord(ledgerTopic: string): OutboundRecord | undefined {
    if (this.#logs === undefined) return undefined;
    const seen = seenLogs(this.#logs, this.#guard?.inHand ?? new Map(), this.#forwarded);
    return logsRecord(ledgerTopic, this.partition, logsValue(seen), this.acquisition);
  }

  // Forwarding (src/consumers/forwarding.ts): per command topic, the last record of this
  // partition forwarded to the partition its key belongs to.

  forwardedUpTo(topic: string): bigint {
    return this.#forwarded.get(topic) ?? -1n;
  }

  get forwarded(): ReadonlyMap<string, bigint> {
    return this.#forwarded;
  }

  markForwarded(topic: string, offset: bigint): void {
    this.#forwarded.set(topic, offset);
  }

  // Offsets in hand and keys held back, per command topic (offsets.ts).

  /**
   * The fate of the next record the fetch brings of the topic: taken in hand, left in Kafka
   * because its key has no room (`hasRoom`), or skipped as seen before (a seek back or a
   * rebalance moves the fetch position back).
   */
  receive(topic: string, offset: string, key: string, hasRoom: () => boolean): Fate {
    let offsets = this.#offsets.get(topic);
    if (!offsets) {
      offsets = new PartitionOffsets();
      this.#offsets.set(topic, offsets);
    }
    return offsets.receive(offset, key, hasRoom);
  }

  finish(topic: string, offset: string): void {
    this.#offsets.get(topic)?.finish(offset);
  }

  /** Keys of the topic that have had everything in hand again since the last call. */
  takeReleased(topic: string): readonly string[] {
    return this.#offsets.get(topic)?.takeReleased() ?? [];
  }

  /** Where to fetch the topic from so that the key's first record left comes back, if needed. */
  rewindFor(topic: string, key: string): string | undefined {
    return this.#offsets.get(topic)?.rewindFor(key);
  }

  /** Where to fetch the topic from when nothing up to the highest record received is to take. */
  skipAhead(topic: string): string | undefined {
    return this.#offsets.get(topic)?.skipAhead();
  }

  /** Whether the key has records left in Kafka (or being read again) in any topic. */
  holdsBack(key: string): boolean {
    for (const offsets of this.#offsets.values()) if (offsets.holds(key)) return true;
    return false;
  }

  /** Keys of the topic with records left in Kafka. */
  heldKeys(topic: string): number {
    return this.#offsets.get(topic)?.heldKeys ?? 0;
  }

  /** Up to `limit` keys of the topic with records left in Kafka. */
  heldKeyNames(topic: string, limit: number): string[] {
    return this.#offsets.get(topic)?.heldKeyNames(limit) ?? [];
  }

  /** Per command topic whose commit position can move forward, the offset to commit. */
  committable(): TopicPartitionOffset[] {
    const result: TopicPartitionOffset[] = [];
    for (const [topic, offsets] of this.#offsets) {
      const offset = offsets.committable();
      if (offset !== undefined) result.push({ topic, partition: this.partition, offset });
    }
    return result;
  }

  /**
   * The group committed `offset` of the topic: what it passed is finished for good, so a
   * recovery after a crash is done past it.
   */
  committed(topic: string, offset: string): void {
    this.#offsets.get(topic)?.markCommitted(offset);
    this.#guard?.committed(topic, BigInt(offset));
  }

  /** The offset after the highest one received (taken in hand or left in Kafka). */
  nextInHand(topic: string): bigint | undefined {
    return this.#offsets.get(topic)?.nextInHand;
  }

  // Runs of its commands.

  /** Registers a run; its signal aborts if the run outlives the release deadline. */
  startRun(): AbortSignal {
    this.#running++;
    if (this.#runs === undefined) {
      this.#runs = new AbortController();
      // Each run listens on it while it waits or calls: as many listeners as runs at once.
      setMaxListeners(0, this.#runs.signal);
    }
    return this.#runs.signal;
  }

  endRun(): void {
    this.#running--;
    if (this.#running === 0) this.#settleIdle();
  }

  whenIdle(): Promise<void> {
    if (this.#running === 0) return Promise.resolve();
    return new Promise((resolve) => this.#onIdle.push(resolve));
  }

  /**
   * Aborts the runs still registered. Those that ended hold the signal too, but no longer look at
   * it; a run started later gets a new one.
   */
  abortRuns(reason: unknown): void {
    this.#runs?.abort(reason);
    this.#runs = undefined;
  }

  // Timers of the machine, and the ledger sweep.

  startTimer(timer: Timer, ms: number, fire: () => void): void {
    clearTimeout(this.#timers.get(timer));
    this.#timers.set(
      timer,
      setTimeout(() => {
        this.#timers.delete(timer);
        fire();
      }, ms),
    );
  }

  cancelTimer(timer: Timer): void {
    clearTimeout(this.#timers.get(timer));
    this.#timers.delete(timer);
  }

  /** Runs a sweep unless one is still running for this task. */
  async sweepOnce(sweep: () => Promise<void>): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      await sweep();
    } finally {
      this.#sweeping = false;
    }
  }

  /** Gone: its timers stop, its writes are refused, its reader goes. */
  close(): void {
    this.#state = undefined;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#reader = undefined;
    this.#settleIdle();
  }

  #settleIdle(): void {
    for (const resolve of this.#onIdle.splice(0)) resolve();
  }
}
