/**
 * One run of one command, as a row of gates and then the handler: its partition must still be
 * its own (its task may start commands), a record to forward is forwarded instead of run, the
 * partition's marker must say it may be in hand, after a crash loop it waits for the partition's
 * turn and runs alone (careful run, crash-guard.ts), it must decode (else it is rejected), the
 * ledger must admit it (src/ledger/admission.ts: not a duplicate, its commandId not reused, not
 * expired), and the circuit must let it through (breaker). Then its handler runs, and the
 * outcome decides its ending (endings.ts). Runs after the first are retries the scheduler brings
 * back after their delay.
 *
 * Before any of it, Kafka must be taking the bridge's writes (refused-writes.ts): while a write
 * is refused until fixed no command starts, save the one whose turn it is to probe; a command
 * whose ending was refused writes it again instead of running, and one whose `started` step was
 * refused (no call made) runs again from the start.
 */
import type { Logger } from 'pino';
import { OutboxClosed, PartitionReleased } from '../../errors.js';
import type { Handlers, Outcome } from '../../handlers/types.js';
import { refusedUntilFixed } from '../../kafka/write-refusal.js';
import { type Admission, admission, type Ledger } from '../../ledger/index.js';
import { marginMs, vouchedSince } from '../../partitions/index.js';
import { type CommandPublisher, producedTime } from '../../producers/index.js';
import type { Command, CommandProgress } from '../../schemas/messages/index.js';
import type { CircuitBreaker, Pass } from '../circuit-breaker.js';
import { decodeCommand } from '../command-decoding.js';
import type { Forwarding } from '../forwarding.js';
import { finishJob, type Job } from '../job.js';
import type { RunVerdict } from '../key-scheduler.js';
import type { RefusedWrites, WritePass } from '../refused-writes.js';
import { decide } from '../retry-decision.js';
import type { BridgeObserver, BridgeSettings } from '../settings.js';
import { Endings } from './endings.js';
import { type HandlerRunOptions, recordVerdict, runHandler } from './handler-run.js';
import { expiry, reusedId } from './record-gates.js';

export interface RunnerOptions {
  readonly handlers: Handlers;
  readonly publisher: CommandPublisher;
  readonly forwarding: Forwarding;
  readonly breaker: CircuitBreaker;
  readonly settings: BridgeSettings;
  readonly observer: BridgeObserver;
  readonly log: Logger;
  /** The entries admission decides from, and how far back each partition's ledger vouches. */
  readonly ledger: Pick<Ledger, 'get' | 'vouchedSince'>;
  /** Whether Kafka takes the bridge's writes (refused-writes.ts). */
  readonly refusals: RefusedWrites;
}

export class CommandRunner {
  readonly #options: RunnerOptions;
  readonly #endings: Endings;
  // Made once: every run of every command hands them to its handler.
  readonly #handlerRun: HandlerRunOptions;
  // What a command the circuit holds back asks for: no timer, it runs again when its turn comes.
  readonly #heldByBreaker: RunVerdict;

  constructor(options: RunnerOptions) {
    this.#options = options;
    const { publisher, observer, settings, log, handlers } = options;
    this.#handlerRun = {
      handlers,
      publisher,
      log,
      priorityOf: (type) => settings.classes.of[type],
    };
    this.#heldByBreaker = {
      retryInMs: Number.POSITIVE_INFINITY,
      until: (resume) => options.breaker.whenMayPass(resume),
    };
    this.#endings = new Endings({
      publisher,
      ledger: options.ledger,
      observer,
      crashLoopLimit: settings.crashLoopLimit,
      refusals: options.refusals,
      log,
    });
  }

  /**
   * Resolves with a retry request, or undefined once the command ended or was left to others.
   * `yieldSlot` is called once the command's ending is handed to the outbox: waiting for Kafka to
   * acknowledge it takes no slot from other keys.
   */
  async run(job: Job, yieldSlot: () => void): Promise<RunVerdict> {
    const { task } = job;
    // Not ours any more: left unfinished for the next owner.
    if (!task.canStart) return undefined;
    const writes = this.#options.refusals.tryPass(job.unwritten !== undefined);
    if (writes === undefined) return this.#heldByRefusal(job);
    // The run counts as running on its partition until its writes are handed to the outbox, so
    // a release (which flushes the outbox) never comes between its end and that end's write.
    const signal = task.startRun();
    let running = true;
    const handedOver = () => {
      if (running) task.endRun();
      running = false;
      yieldSlot();
    };
    try {
      return await this.#run(job, signal, handedOver, writes);
    } catch (error) {
      // Left unfinished: the partition's next owner runs the command again.
      if (error instanceof PartitionReleased || error instanceof OutboxClosed) return undefined;
      throw error;
    } finally {
      if (running) task.endRun();
      writes.end();
    }
  }

  /** Waits, without a slot, until Kafka may take its writes (refused-writes.ts). */
  #heldByRefusal(job: Job): RunVerdict {
    const until = this.#options.refusals.wake(job.unwritten !== undefined);
    return { retryInMs: Number.POSITIVE_INFINITY, until };
  }

  async #run(
    job: Job,
    signal: AbortSignal,
    handedOver: () => void,
    writes: WritePass,
  ): Promise<RunVerdict> {
    if (job.unwritten) return this.#endings.writeAgain(job, writes, handedOver);
    const { forwarding } = this.#options;
    if (job.forwardTo !== undefined && (await forwarding.forward(job, job.forwardTo))) {
      finishJob(job);
      return undefined;
    }
    if (job.admitted && !(await job.admitted)) return undefined;
    const turn = job.task.carefulTurn(job.record);
    switch (turn.go) {
      case 'as-usual':
        return this.#runCommand(job, signal, handedOver, writes);
      case 'wait':
        // Without a slot, its lane's later commands behind it, as the breaker holds commands.
        return { retryInMs: turn.retryInMs, until: turn.until };
      case 'alone':
        return this.#runAlone(job, turn.end, signal, handedOver, writes);
    }
  }

  /**
   * While its partition is careful after a crash loop (crash-guard.ts), the run holds the
   * partition's turn until it is over: nothing else of the partition runs meanwhile. Its
   * careful-run record is written first; a record that died running alone too often is
   * dead-lettered instead.
   */
  async #runAlone(
    job: Job,
    endTurn: () => void,
    signal: AbortSignal,
    handedOver: () => void,
    writes: WritePass,
  ): Promise<RunVerdict> {
    try {
      const verdict = await job.task.beforeCarefulRun(job.record);
      if (verdict === 'left') return undefined;
      if (verdict === 'dead-letter') return await this.#endings.deadLetterCrashLoop(job, writes);
      return await this.#runCommand(job, signal, handedOver, writes);
    } finally {
      endTurn();
    }
  }

  /** Decoded, admitted by the ledger and let through by the breaker, the handler runs. */
  async #runCommand(
    job: Job,
    signal: AbortSignal,
    handedOver: () => void,
    writes: WritePass,
  ): Promise<RunVerdict> {
    const { observer, settings, breaker } = this.#options;
    job.firstRunAt ??= performance.now();
    job.observation ??= observer.commandStarted?.({ type: job.type, record: job.record });
    job.decoded ??= decodeCommand(job.record, job.type, settings.limits);
    if (!job.decoded.ok) return this.#endings.reject(job, job.decoded, writes);
    const { command, fingerprint } = job.decoded;
    const admitted = this.#admit(job, command.commandId, fingerprint);
    switch (admitted.kind) {
      case 'duplicate':
        return this.#endings.finished(job, 'duplicate');
      case 'reused':
        return this.#endings.reject(job, reusedId(job, command, admitted.first), writes);
      case 'expired':
        return this.#endings.reject(
          job,
          expiry(job, admitted.producedAt, admitted.vouchedSince),
          writes,
        );
    }
    // Vouched for once: a record this instance holds and runs again is decided by its entry.
    job.vouched = true;
    const breakerPass = breaker.tryPass();
    if (breakerPass === undefined) return this.#heldByBreaker;
    job.runs++;
    const outcome = await this.#call(job, command, admitted.progress, signal, breakerPass, writes);
    if (outcome === undefined) return undefined;
    // Its `started` step refused until fixed, or the gate closed before it was written: no call
    // was made, and it runs again once Kafka takes writes.
    if (outcome.kind !== 'completed' && refusedUntilFixed(outcome.error)) {
      return this.#heldByRefusal(job);
    }
    const decision = decide(outcome, job.history, settings, performance.now());
    return this.#endings.act(job, command, decision, writes, handedOver);
  }

  /** What the ledger says of the record's command (src/ledger/admission.ts). */
  #admit(job: Job, commandId: string, fingerprint: string): Admission {
    const { ledger, settings } = this.#options;
    const { partition } = job.record;
    let since: number | undefined;
    if (!job.vouched) {
      const windowMs = settings.ledgerReplayWindowMs;
      const now = Date.now();
      since = ledger.vouchedSince(partition, vouchedSince(now, windowMs), marginMs(windowMs), now);
    }
    return admission(ledger.get(partition, job.key), {
      commandId,
      fingerprint,
      record: job.record,
      producedAt: producedTime(job.record),
      vouchedSince: since,
    });
  }

  /** The handler's run, its verdict recorded before its pass ends (a probe's, say). */
  async #call(
    job: Job,
    command: Command,
    progress: CommandProgress,
    signal: AbortSignal,
    breakerPass: Pass,
    writes: WritePass,
  ): Promise<Outcome | undefined> {
    try {
      const outcome = await runHandler(job, command, progress, signal, writes, this.#handlerRun);
      if (outcome !== undefined) recordVerdict(this.#options.breaker, outcome);
      return outcome;
    } finally {
      breakerPass.end();
    }
  }
}
