/**
 * Writes Kafka refuses until an operator acts (src/kafka/write-refusal.ts: an ACL revoked, the
 * instance's clock outside the broker's bounds, a policy) stop the work, not the results.
 *
 * The first such refusal closes the gate for every partition of the instance (every command
 * writes to the ledger and the events topic, and each code refuses a topic or the client, never
 * one partition): no command starts, so none makes another platform call. What was in hand
 * keeps what it must write: a command whose ending was refused keeps that ending, its offset
 * unfinished (never committed past); one whose `started` step was refused made no call and runs
 * again. Each waits without a slot. Every few seconds (backoff, capped) one of them probes: a
 * command whose ending waits goes first and writes it again, else a fresh one runs, its
 * `started` step the probe (it calls only once that is acknowledged). Once every topic under
 * suspicion has taken a write the gate opens: everyone waiting runs, each ending is written.
 *
 * Kafka's answer does not say which topic of a write refused it: the topics suspected are those
 * every refused write went to, less any a write acknowledged since.
 *
 * While closed, the readiness cause `kafka-refused` names them, Kafka's code and what to check;
 * logged once at error when it closes and once at info when it opens.
 */
import type { Logger } from 'pino';
import type { KafkaWriteFailed } from '../errors.js';
import { refusalAdvice } from '../kafka/write-refusal.js';
import { type BackoffPolicy, backoffCap } from '../retry/backoff.js';
import type { TopicNames } from '../schemas/messages/index.js';
import type { Wake } from './key-scheduler.js';
import type { Readiness } from './readiness.js';

export const KAFKA_REFUSED = 'kafka-refused';

/** What a command writes: a step (the ledger), its ending or a rejection (and their events). */
export type WriteKind = 'step' | 'ending' | 'rejection';

export interface RefusedWritesOptions {
  readonly readiness: Readiness;
  readonly log: Logger;
  readonly topics: Pick<TopicNames, 'ledger' | 'events' | 'deadLetter'>;
  /** Delays between probes; the attempt is the count of probes refused in a row. */
  readonly probes: BackoffPolicy;
  /** Told Kafka's code while the gate is closed, undefined once it opens. */
  readonly onChange?: (kafkaError: string | undefined) => void;
}

/** A run's leave to write, taken before it starts (tryPass). */
export interface WritePass {
  /**
   * The refusal that closed the gate, while it is closed and this run is not its probe: the run
   * then writes nothing new (it waits, and runs again).
   */
  readonly held: KafkaWriteFailed | undefined;
  /** A write of the run was acknowledged. */
  written(kind: WriteKind): void;
  /** A write of the run was refused until fixed. */
  refused(error: KafkaWriteFailed, kind: WriteKind): void;
  /** The run is over (whatever it wrote). */
  end(): void;
}

interface Closed {
  error: KafkaWriteFailed;
  suspects: Set<string>;
  readonly since: number;
}

export class RefusedWrites {
  readonly #options: RefusedWritesOptions;
  readonly #kinds: Record<WriteKind, readonly string[]>;
  #closed: Closed | undefined;
  // Probes refused in a row.
  #attempt = 0;
  // A probe may go (a tick came, or the last probe ended without a verdict).
  #due = false;
  // ...and it is for a command whose ending waits: the one woken for it.
  #dueForEnding = false;
  #probe: Pass | undefined;
  #timer: NodeJS.Timeout | undefined;
  // In arrival order; true for a command whose ending waits (it probes first).
  readonly #waiters = new Map<() => void, boolean>();

  constructor(options: RefusedWritesOptions) {
    this.#options = options;
    const { ledger, events, deadLetter } = options.topics;
    this.#kinds = {
      step: [ledger],
      ending: [ledger, events],
      rejection: [ledger, events, deadLetter],
    };
  }

  /** Whether writes are held (the readiness cause is). */
  get holds(): boolean {
    return this.#closed !== undefined;
  }

  /** The refusal that closed the gate, while it is closed. */
  heldBy(): KafkaWriteFailed | undefined {
    return this.#closed?.error;
  }

  /**
   * Leave to run: always while open; while closed, only as the probe, when one is due (a
   * command whose ending waits before any other). Undefined: wait (whenMayPass).
   */
  tryPass(ending: boolean): WritePass | undefined {
    if (!this.#closed) return new Pass(this, false);
    if (!this.#due || this.#probe) return undefined;
    if (!ending && (this.#dueForEnding || [...this.#waiters.values()].includes(true))) {
      return undefined;
    }
    this.#due = false;
    this.#probe = new Pass(this, true);
    return this.#probe;
  }

  /** Wakes the waiter when it may try again: its turn to probe, or the gate opened. */
  whenMayPass(resume: () => void, ending: boolean): () => void {
    let waiting = true;
    const waiter = () => {
      if (waiting) resume();
      waiting = false;
    };
    this.#waiters.set(waiter, ending);
    if (!this.#closed) this.#releaseAll();
    else if (this.#due && !this.#probe) this.#releaseOne();
    return () => {
      waiting = false;
      this.#waiters.delete(waiter);
    };
  }

  /** The held waiter for a verdict: wait until whenMayPass wakes it. */
  wake(ending: boolean): Wake {
    return (resume) => this.whenMayPass(resume, ending);
  }

  /**
   * A write was refused until fixed: a run's (its pass), or one of the partitions' own (the crash
   * guard's marker of what may be in hand, which it writes again by itself).
   */
  refused(error: KafkaWriteFailed, kind: WriteKind, pass?: Pass): void {
    const topics = this.#kinds[kind];
    if (pass !== undefined && pass === this.#probe) {
      this.#probe = undefined;
      this.#attempt += 1;
    }
    const closed = this.#closed;
    if (!closed) {
      this.#close(error, topics);
      return;
    }
    const common = topics.filter((topic) => closed.suspects.has(topic));
    // Two writes with no topic in common refused: both topics are.
    closed.suspects = new Set(common.length > 0 ? common : [...closed.suspects, ...topics]);
    const changed = closed.error.details.kafkaError !== error.details.kafkaError;
    closed.error = error;
    this.#options.readiness.hold(KAFKA_REFUSED, this.#detail());
    if (changed) this.#options.onChange?.(error.details.kafkaError);
  }

  written(kind: WriteKind): void {
    const closed = this.#closed;
    if (!closed) return;
    for (const topic of this.#kinds[kind]) closed.suspects.delete(topic);
    // A probe whose step went through while its ending's topic is still suspected goes on: its
    // ending is the rest of the probe.
    if (closed.suspects.size === 0) this.#open();
    else this.#options.readiness.hold(KAFKA_REFUSED, this.#detail());
  }

  ended(pass: Pass): void {
    if (pass !== this.#probe) return;
    // It wrote nothing that tells (a replay, say): the next may probe at once.
    this.#probe = undefined;
    this.#due = true;
    this.#releaseOne();
  }

  #close(error: KafkaWriteFailed, topics: readonly string[]): void {
    this.#closed = { error, suspects: new Set(topics), since: performance.now() };
    this.#attempt = 0;
    const { readiness, log, onChange } = this.#options;
    readiness.hold(KAFKA_REFUSED, this.#detail());
    onChange?.(error.details.kafkaError);
    log.error(
      { err: error, topics, kafkaError: error.details.kafkaError },
      `Kafka refuses writes until fixed (${error.details.kafkaError}): no command starts; what waits to be written is kept and written again once Kafka takes it. Check ${refusalAdvice(error.details.kafkaError)}`,
    );
    this.#tick();
  }

  #open(): void {
    const heldForMs = Math.round(performance.now() - (this.#closed?.since ?? performance.now()));
    this.#closed = undefined;
    this.#attempt = 0;
    this.#due = false;
    this.#probe = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const { readiness, log, onChange } = this.#options;
    readiness.release(KAFKA_REFUSED);
    onChange?.(undefined);
    log.info({ heldForMs }, 'Kafka takes writes again: commands resume');
    this.#releaseAll();
  }

  /** While closed, every backoff delay: a probe may go unless one is out. */
  #tick(): void {
    this.#timer = setTimeout(
      () => {
        if (!this.#closed) return;
        if (!this.#probe) {
          this.#due = true;
          this.#releaseOne();
        }
        this.#tick();
      },
      backoffCap(this.#options.probes, this.#attempt),
    );
    this.#timer.unref();
  }

  #detail(): string {
    const closed = this.#closed as Closed;
    const { kafkaError } = closed.error.details;
    const topics = [...closed.suspects].sort().join(' or ');
    return `${topics} refused writes with ${kafkaError}; check ${refusalAdvice(kafkaError)}`;
  }

  /** The first command whose ending waits, else the first waiter; a microtask later. */
  #releaseOne(): void {
    let chosen: (() => void) | undefined;
    for (const [waiter, ending] of this.#waiters) {
      chosen ??= waiter;
      if (ending) {
        chosen = waiter;
        break;
      }
    }
    this.#dueForEnding = chosen !== undefined && this.#waiters.get(chosen) === true;
    if (!chosen) return;
    this.#waiters.delete(chosen);
    queueMicrotask(chosen);
  }

  #releaseAll(): void {
    const waiters = [...this.#waiters.keys()];
    this.#waiters.clear();
    for (const waiter of waiters) queueMicrotask(waiter);
  }
}

class Pass implements WritePass {
  readonly #gate: RefusedWrites;
  readonly #probe: boolean;
  #ended = false;

  constructor(gate: RefusedWrites, probe: boolean) {
    this.#gate = gate;
    this.#probe = probe;
  }

  get held(): KafkaWriteFailed | undefined {
    return this.#probe ? undefined : this.#gate.heldBy();
  }

  written(kind: WriteKind): void {
    if (this.#gate.holds) this.#gate.written(kind);
  }

  refused(error: KafkaWriteFailed, kind: WriteKind): void {
    this.#gate.refused(error, kind, this);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#gate.ended(this);
  }
}
