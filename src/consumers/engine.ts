/**
 * The bridge's moving parts for one run, wired together in one direction: intake → scheduler →
 * runner → publisher → outbox, with the owned partitions' tasks (src/partitions) and the circuit
 * breaker around. Each part is built after everything it uses.
 */
import type { Logger } from 'pino';
import { PartitionReleased } from '../errors.js';
import {
  BATCH_OVERHEAD_BYTES,
  type GroupConsumer,
  LEASE_MS,
  type OutboundRecord,
  type PartitionStall,
  type RecordProducer,
} from '../kafka/index.js';
import { EvictionLog, Ledger } from '../ledger/index.js';
import { Lease, Partitions } from '../partitions/index.js';
import { CommandPublisher, Outbox } from '../producers/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { classWeights } from './command-classes.js';
import { Forwarding } from './forwarding.js';
import { HotKeyLog } from './hot-key-log.js';
import { InFlightGovernor } from './in-flight-limit.js';
import { Intake } from './intake.js';
import type { Job } from './job.js';
import { KeyScheduler } from './key-scheduler.js';
import { LagReport } from './lag-report.js';
import { Readiness } from './readiness.js';
import { RefusedWrites } from './refused-writes.js';
import { CommandRunner } from './runner/command-runner.js';
import type { BridgeObserver, BridgeOptions } from './settings.js';
import { WriteWatch } from './write-watch.js';

// Long enough to gather the records of commands finishing together, short against a platform call.
const OUTBOX_LINGER_MS = 2;
// Keeps each partition's share of a produce request well under the broker's 1 MB default.
const OUTBOX_MAX_RECORDS = 500;
// kafkajs has already retried for up to 30 s when a send fails; then look again every few seconds.
const OUTBOX_RETRY = { initialDelayMs: 500, maxDelayMs: 5_000, multiplier: 2 };
// How long aborted runs get to wind down before their partition is released regardless.
const ABORT_GRACE_MS = 1_000;
// Between probes while Kafka refuses writes until fixed (refused-writes.ts): soon after an
// operator's fix, without a refused write every second meanwhile.
const REFUSED_PROBES = { initialDelayMs: 1_000, maxDelayMs: 10_000, multiplier: 2 };
// Writes failing longer than this make the bridge not ready; a transactional producer replaced
// after a coordinator moved sends again well within it (write-watch.ts).
const WRITE_FAILURE_GRACE_MS = 5_000;

/** The max.message.bytes of each topic the bridge writes, as the broker says. */
export interface WriteLimits {
  readonly events: number;
  readonly deadLetter: number;
  readonly ledger: number;
}

export interface Engine {
  readonly intake: Intake;
  readonly partitions: Partitions;
  /** This instance's lease on its partitions (src/partitions/lease.ts). */
  readonly lease: Lease;
  /** The causes that keep the bridge from being ready (readiness.ts). */
  readonly readiness: Readiness;
  /** Whether Kafka takes the bridge's writes, or refuses them until fixed (refused-writes.ts). */
  readonly refusals: RefusedWrites;
  readonly scheduler: KeyScheduler<Job>;
  readonly breaker: CircuitBreaker;
  readonly outbox: Outbox;
  readonly ledger: Ledger;
  readonly evictionLog: EvictionLog;
  readonly lag: LagReport;
  readonly governor: InFlightGovernor;
}

/** `fail`: the bridge cannot go on (its ledger refuses it). */
export function createEngine(
  options: BridgeOptions,
  io: {
    consumer: GroupConsumer;
    producer: RecordProducer;
    instance: string;
    writeLimits: WriteLimits;
    /** The command topics' (and the ledger's) partition count; this instance's share of the
     * budget is of it. */
    commandPartitions: number;
    /** Where writes that keep failing are stuck, from the cluster's metadata (write-watch.ts). */
    diagnose: (records: readonly OutboundRecord[]) => Promise<readonly PartitionStall[]>;
    /** Exactly-once: takes another instance's transactional id (partitions.ts, `fence`). */
    fence?: (instance: string) => Promise<void>;
  },
  fail: (error: Error) => void,
): Engine {
  const { topics, settings, handlers } = options;
  const log: Logger = options.log;
  const observer: BridgeObserver = options.observer ?? {};
  const commandTopics = Object.values(topics.commands);
  const typeOf = new Map(
    Object.entries(topics.commands).map(([type, topic]) => [topic, type as CommandType]),
  );
  const lease = new Lease(LEASE_MS);
  const readiness = new Readiness();
  const writes = new WriteWatch({
    readiness,
    log,
    graceMs: WRITE_FAILURE_GRACE_MS,
    onChange: (failing) => observer.kafkaWritesFailing?.(failing),
    diagnose: io.diagnose,
    onStalls: (stalls) => observer.kafkaWritesStalled?.(stalls),
    onFailure: (kafkaError) => observer.kafkaWriteFailed?.(kafkaError),
  });
  const outbox = new Outbox({
    sink: (records) => io.producer.send(records),
    refusal: () => (lease.holds() ? undefined : leaseEnded()),
    lingerMs: OUTBOX_LINGER_MS,
    maxRecords: OUTBOX_MAX_RECORDS,
    maxBatchBytes: Math.min(...Object.values(io.writeLimits)) - BATCH_OVERHEAD_BYTES,
    retry: OUTBOX_RETRY,
    compactedTopics: new Set([topics.ledger]),
    onSendFailed: (error, attempt, delayMs, records) =>
      writes.failed(error, attempt, delayMs, records),
    onRetriesEnded: (answered) => writes.ended(answered),
  });
  const evictionLog = new EvictionLog(log);
  const ledger = new Ledger(topics.ledger, {
    // The bound is the instance's; one instance may own every partition.
    partitionBytes: settings.ledgerMemoryBytes / Math.max(1, io.commandPartitions),
    onEvict: (partition, eviction) => evictionLog.evicted(partition, eviction),
  });
  const breaker = new CircuitBreaker(settings.breaker);
  const refusals = new RefusedWrites({
    readiness,
    log,
    topics,
    probes: REFUSED_PROBES,
    onChange: (kafkaError) => observer.kafkaWritesRefused?.(kafkaError),
  });
  const publisher = new CommandPublisher({
    ledger,
    outbox,
    topics,
    source: settings.source,
    keep: settings.ledgerCommandsPerBizId,
    deadLetter: {
      maxRecordBytes: io.writeLimits.deadLetter,
      maxKeyBytes: settings.limits.record.maxKeyBytes,
      maxHeaders: settings.limits.record.maxHeaders,
      maxHeaderBytes: settings.limits.record.maxHeaderBytes,
    },
    log,
  });
  const runner = new CommandRunner({
    handlers,
    publisher,
    forwarding: new Forwarding({ outbox, ledgerTopic: topics.ledger, observer, log }),
    breaker,
    settings,
    observer,
    log,
    ledger,
    refusals,
  });
  const classOf = (type: CommandType) => settings.classes.of[type];
  const scheduler = new KeyScheduler<Job>({
    worker: (job, yieldSlot) => runner.run(job, yieldSlot),
    lane: (job) => job.type,
    classOf: (job) => classOf(job.type),
    weights: classWeights(settings.classes),
    maxInFlight: settings.maxInFlight,
    maxPending: settings.maxPending,
    size: (job) => job.bytes,
    maxPendingSize: settings.maxPendingBytes,
    onError: (error, job) => {
      const { topic, partition, offset } = job.record;
      log.error({ err: error, topic, partition, offset }, 'command run failed unexpectedly');
    },
    // Intake is built below, after the partitions it reads from; this is called later.
    onLaneRelieved: (key, lane) => intake.laneRelieved(key, lane as CommandType),
  });
  const partitions = new Partitions({
    consumer: io.consumer,
    instance: io.instance,
    topics: { commands: commandTopics, ledger: topics.ledger },
    ledger,
    outbox,
    lease,
    clearQueued: (partition) => scheduler.clear((job) => job.record.partition === partition),
    onLedgerUnwritable: fail,
    onLedgerHeld: (error) => refusals.refused(error, 'step'),
    onShareChange: (held) => options.onShareChange?.({ held, of: io.commandPartitions }),
    onLease: ({ held, reason }) => observer.leaseChanged?.(held, reason),
    fence: io.fence,
    settings: {
      handoverTimeoutMs: settings.handoverTimeoutMs,
      abortGraceMs: ABORT_GRACE_MS,
      crashLoopLimit: settings.crashLoopLimit,
      ledgerWindowMs: settings.ledgerReplayWindowMs,
    },
    log,
  });
  const hotKeyLog = new HotKeyLog(log);
  const intake = new Intake({
    scheduler,
    partitions,
    typeOf,
    limits: settings.limits.record,
    commandPartitions: io.commandPartitions,
    classOf,
    observer: {
      ...observer,
      keyHeldBack: (info) => {
        observer.keyHeldBack?.(info);
        hotKeyLog.heldBack(info);
      },
      keyReleased: (info) => {
        observer.keyReleased?.(info);
        hotKeyLog.released(info);
      },
    },
  });
  const lag = new LagReport({
    consumer: io.consumer,
    partitions,
    commandTopics,
    observer,
    log,
  });
  const governor = new InFlightGovernor(
    { ceiling: settings.maxInFlight, targetDelayMs: settings.eventLoopDelayTargetMs },
    scheduler,
  );
  return {
    intake,
    partitions,
    lease,
    readiness,
    refusals,
    scheduler,
    breaker,
    outbox,
    ledger,
    evictionLog,
    lag,
    governor,
  };
}

/** Whatever waits to be written when the lease ends belongs to partitions given up. */
function leaseEnded(): PartitionReleased {
  return new PartitionReleased(
    "this instance's lease on its partitions ended: nothing more is written for them",
    { details: { partition: -1 } },
  );
}
