/**
 * One run of one command, as a row of gates and then the handler: its partition must still be
 * its own (its task may start commands), a record to forward is forwarded instead of run, the
 * partition's marker must say it may be in hand (admission), after a crash loop it runs alone
 * (careful run), it must decode (else it is rejected), must not have ended already (dedupe), and
 * the circuit must let it through (breaker). Then its handler runs, and the outcome decides its
 * ending (endings.ts). Runs after the first are retries the scheduler brings back after their
 * delay.
 */
import type { Logger } from 'pino';
import { OutboxClosed, PartitionReleased } from '../../errors.js';
import type { Handlers, Outcome } from '../../handlers/types.js';
import type { Ledger } from '../../ledger/index.js';
import { marginMs, vouchedSince } from '../../partitions/index.js';
import type { CommandPublisher } from '../../producers/index.js';
import type { Command } from '../../schemas/messages/index.js';
import type { CircuitBreaker, Pass } from '../circuit-breaker.js';
import { decodeCommand } from '../command-decoding.js';
import type { Forwarding } from '../forwarding.js';
import { finishJob, type Job } from '../job.js';
import type { RunVerdict } from '../key-scheduler.js';
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
  /** Where a partition's memory bound moved its window's start (the expiry gate uses it). */
  readonly ledger?: Pick<Ledger, 'vouchedSince'>;
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
      observer,
      crashLoopLimit: settings.crashLoopLimit,
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
      return await this.#run(job, signal, handedOver);
    } catch (error) {
      // Left unfinished: the partition's next owner runs the command again.
      if (error instanceof PartitionReleased || error instanceof OutboxClosed) return undefined;
      throw error;
    } finally {
      if (running) task.endRun();
    }
  }

  async #run(job: Job, signal: AbortSignal, handedOver: () => void): Promise<RunVerdict> {
    const { forwarding, observer, settings, breaker } = this.#options;
    if (job.forwardTo !== undefined && (await forwarding.forward(job, job.forwardTo))) {
      finishJob(job);
      return undefined;
    }
    if (job.admitted && !(await job.admitted)) return undefined;
    if (job.careful) {
      const verdict = await job.task.beforeCarefulRun(job.record);
      if (verdict === 'left') return undefined;
      if (verdict === 'dead-letter') return this.#endings.deadLetterCrashLoop(job);
    }
    job.firstRunAt ??= performance.now();
    job.observation ??= observer.commandStarted?.({ type: job.type, record: job.record });
    job.decoded ??= decodeCommand(job.record, job.type, settings.limits);
    if (!job.decoded.ok) return this.#endings.reject(job, job.decoded);
    const { command, fingerprint } = job.decoded;
    const prior = this.#options.publisher.priorRun(job, command.commandId, fingerprint);
    if (prior.kind === 'duplicate') return this.#endings.finished(job, 'duplicate');
    if (prior.kind === 'reused')
      return this.#endings.reject(job, reusedId(job, command, prior.first));
    if (!prior.known && !job.vouched) {
      const windowMs = settings.ledgerReplayWindowMs;
      const now = Date.now();
      const windowStart = vouchedSince(now, windowMs);
      const { partition } = job.record;
      const since =
        this.#options.ledger?.vouchedSince(partition, windowStart, marginMs(windowMs), now) ??
        windowStart;
      const expired = expiry(job, since);
      if (expired) return this.#endings.reject(job, expired);
      job.vouched = true;
    }
    const pass = breaker.tryPass();
    if (pass === undefined) return this.#heldByBreaker;
    job.runs++;
    const outcome = await this.#call(job, command, signal, pass);
    if (outcome === undefined) return undefined;
    const decision = decide(outcome, job.history, settings, performance.now());
    return this.#endings.act(job, command, decision, handedOver);
  }

  /** The handler's run, its verdict recorded before its pass ends (a probe's, say). */
  async #call(
    job: Job,
    command: Command,
    signal: AbortSignal,
    pass: Pass,
  ): Promise<Outcome | undefined> {
    try {
      const outcome = await runHandler(job, command, signal, this.#handlerRun);
      if (outcome !== undefined) recordVerdict(this.#options.breaker, outcome);
      return outcome;
    } finally {
      pass.end();
    }
  }
}
