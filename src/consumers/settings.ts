import { getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';
import { ConfigInvalid } from '../errors.js';
import type { Handlers } from '../handlers/types.js';
import type { InboundRecord, KafkaConnection } from '../kafka/index.js';
import type { LoseReason } from '../partitions/index.js';
import type { BackoffPolicy } from '../retry/backoff.js';
import type { CommandType, TopicNames } from '../schemas/messages/index.js';
import type { CircuitBreakerOptions, CircuitState } from './circuit-breaker.js';
import {
  type CommandClasses,
  classesWithoutWeight,
  DEFAULT_COMMAND_CLASSES,
  MAX_CLASS_WEIGHT,
} from './command-classes.js';
import type { DecodingLimits } from './command-decoding.js';
import { DEFAULT_JSON_LIMITS } from './json-shape.js';
import { DEFAULT_RECORD_LIMITS } from './record-limits.js';
import type { WriteStall } from './write-watch.js';

export interface BridgeSettings {
  groupId: string;
  /** Commands running at once (waiting to retry does not count). */
  maxInFlight: number;
  /**
   * The event loop's p50 delay (its 10 ms timer's interval) above which fewer commands run at
   * once, down to 32; 0: always maxInFlight (src/consumers/in-flight-limit.ts).
   */
  eventLoopDelayTargetMs: number;
  /** Fetching pauses at this many commands queued, running or waiting to retry. */
  maxPending: number;
  /** ...or at this many bytes of their records (keys, values, headers). */
  maxPendingBytes: number;
  /** Priority classes: slots, the pending bounds and rate tokens are shared between them. */
  classes: CommandClasses;
  /** What a command record may hold; checked before it is decoded. */
  limits: DecodingLimits;
  /** Transient failures. */
  retry: { maxAttempts: number; maxElapsedMs: number; policy: BackoffPolicy };
  /** The contract not found yet. */
  precondition: { timeoutMs: number; policy: BackoffPolicy };
  breaker: CircuitBreakerOptions;
  commitIntervalMs: number;
  /** Not ready once the consumer has not heard from its group (brokers, membership) this long. */
  readinessTimeoutMs: number;
  /**
   * How often the co-partitioned topics' partition counts are compared with those at start
   * (partition-watch.ts). A fixed value, not a variable: tests shorten it.
   */
  partitionCheckMs: number;
  shutdownDeadlineMs: number;
  /** How long a new owner waits for the previous owner to release a partition. */
  handoverTimeoutMs: number;
  deliveryMode: 'at-least-once' | 'exactly-once';
  /** Ended commandIds remembered per bizId, for replay detection. */
  ledgerCommandsPerBizId: number;
  /**
   * How long a bizId's ledger entry outlives its last write when nothing of it is open: a
   * replay within it is skipped, an older one runs again.
   */
  ledgerReplayWindowMs: number;
  /**
   * Estimated bytes the ledger entries of all owned partitions may take (each partition a
   * 1/partitions share); past it the oldest ended entries leave and the window shrinks.
   */
  ledgerMemoryBytes: number;
  /**
   * Process deaths a command record may cause while it runs alone, in a crash loop, before it
   * is dead-lettered instead (src/partitions/crash-guard.ts).
   */
  crashLoopLimit: number;
  /** CloudEvents ce_source. */
  source: string;
}

export type CommandEnding =
  | 'completed'
  | 'failed'
  | 'gave-up'
  | 'precondition-timed-out'
  | 'rejected'
  | 'duplicate';

/** How one command record ended, for metrics, the log line of its end and its trace. */
export interface CommandEnd {
  readonly type: CommandType;
  readonly outcome: CommandEnding;
  /** From its first run to its end, retries included. */
  readonly durationMs: number;
  /** Runs of its handler (none for a rejected record or a replay). */
  readonly attempts: number;
  /** As read from the command; absent when the record could not be read. */
  readonly commandId?: string | undefined;
  readonly bizId?: string | undefined;
  readonly record: { readonly topic: string; readonly partition: number; readonly offset: string };
  /** The code of the bridge's error that ended it (SB_ERR_...), when one did. */
  readonly errorCode?: string | undefined;
  /** The platform's code, when the platform's answer ended it. */
  readonly platformCode?: string | undefined;
  /** The trace it belongs to, when it is traced. */
  readonly traceId?: string | undefined;
}

/**
 * Follows one command record from its first run to its end: a trace span, say. The runner
 * runs each run of the handler and the write of the ending through it, and publishes its
 * headers with every event of the command.
 */
export interface CommandObservation {
  /** Runs one run of the handler as part of the command (its platform calls nest in it). */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** The write of the command's ending to Kafka, until Kafka acknowledges it. */
  publish<T>(work: () => Promise<T>): Promise<T>;
  /** Headers carrying the command's trace context (W3C traceparent, tracestate). */
  readonly headers: Readonly<Record<string, string>>;
  readonly traceId?: string | undefined;
  end(end: CommandEnd): void;
}

/** The observation of a command nobody follows: the work as it is, no headers. */
export const UNOBSERVED: CommandObservation = {
  run: (work) => work(),
  publish: (work) => work(),
  headers: {},
  end: () => {},
};

/** One partition's position, for its consumer lag. Offsets as Kafka counts them (next to read). */
export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  /** The offset after the partition's last record. */
  readonly highWatermark: bigint;
  /** The group's committed offset (the start of the partition when none is). */
  readonly committed: bigint;
  /** The offset after the last record taken in hand (the committed one when none is). */
  readonly nextInHand: bigint;
}

/** Every callback is optional; metrics, logs and traces hang here (src/observability). */
export interface BridgeObserver {
  /** A command record's first run begins; what it returns follows the command to its end. */
  commandStarted?(start: { type: CommandType; record: InboundRecord }): CommandObservation;
  commandFinished?(end: CommandEnd): void;
  /** A record was copied to the dead-letter topic; `reason` is the error's code. */
  deadLettered?(info: { type: CommandType; reason: string }): void;
  /** A record was forwarded to the partition its key belongs to. */
  recordForwarded?(info: { type: CommandType }): void;
  retryScheduled?(info: {
    type: CommandType;
    reason: 'transient' | 'not-found' | 'outage';
    delayMs: number;
  }): void;
  consumptionPaused?(paused: boolean, reason: 'backpressure' | 'breaker'): void;
  /**
   * `cause`: what the failures that opened the circuit were (an outage cause of
   * src/api-client/delivery.ts), once it has opened.
   */
  breakerStateChanged?(state: CircuitState, cause?: string): void;
  /**
   * The lease on the partitions ended and every partition was given up (`held` false, with why:
   * `expired`, `crashed`), or the group answered again and they are being acquired afresh.
   */
  leaseChanged?(held: boolean, reason?: LoseReason): void;
  /**
   * Writes to Kafka have failed for longer than a short grace (true: the bridge is not ready,
   * readiness cause `kafka-writes`), or work again (false); write-watch.ts.
   */
  kafkaWritesFailing?(failing: boolean): void;
  /**
   * Kafka refuses the bridge's writes until fixed (its code: TOPIC_AUTHORIZATION_FAILED,
   * INVALID_TIMESTAMP...): no command starts, readiness cause `kafka-refused`; undefined once it
   * takes them again (refused-writes.ts).
   */
  kafkaWritesRefused?(kafkaError: string | undefined): void;
  /** A send to Kafka failed for a reason that may pass (its code, or the error's name). */
  kafkaWriteFailed?(kafkaError: string): void;
  /**
   * While writes have failed for more than 5 s, the partitions they are stuck on and why
   * (write-watch.ts); [] once a write goes through.
   */
  kafkaWritesStalled?(stalls: readonly WriteStall[]): void;
  /** Every commit interval: commands running and pending, in all and per priority class. */
  load?(
    inFlight: number,
    pending: number,
    byClass?: ReadonlyArray<{ name: string; running: number; pending: number }>,
  ): void;
  /** Every commit interval: how many commands may run at once now (src/consumers/in-flight-limit.ts). */
  inFlightLimit?(limit: number): void;
  /** The bizIds the ledger holds entries of, every commit interval. */
  ledgerSize?(bizIds: number): void;
  /**
   * Every commit interval: per owned partition, how far back its ledger remembers (seconds: the
   * replay window, or less where the memory bound evicted entries), and the configured window.
   */
  ledgerWindows?(windows: ReadonlyMap<number, number>, configuredSeconds: number): void;
  /**
   * A bizId's commands of a type were left in Kafka, its share being in hand (docs/design.md,
   * "Hot keys"), for the first time since it last had everything in hand; `offset` is the first.
   */
  keyHeldBack?(info: { type: CommandType; bizId: string; partition: number; offset: string }): void;
  /** A bizId held back has every command of the type it left in Kafka in hand again. */
  keyReleased?(info: { type: CommandType; bizId: string; partition: number }): void;
  /** A bizId held back had room again: `partitions` were fetched again from its first left. */
  keyRewound?(info: { type: CommandType; partitions: number }): void;
  /**
   * Every commit interval, per command type: the most commands one bizId holds in hand, and the
   * bizIds with commands left in Kafka.
   */
  hotKeys?(byType: ReadonlyArray<{ type: CommandType; longest: number; heldBack: number }>): void;
  /**
   * Every command partition this instance owns, with its lag: at every change of assignment
   * and every few seconds. A partition missing from the list is no longer owned.
   */
  partitionLags?(lags: readonly PartitionLag[]): void;
}

/**
 * This instance's share of the group's command partitions: those it holds (active, draining or
 * releasing up to its `released` marker) out of the command topics' partition count.
 */
export interface PartitionShare {
  readonly held: number;
  readonly of: number;
}

export interface BridgeOptions {
  kafka: KafkaConnection;
  topics: TopicNames;
  handlers: Handlers;
  settings: BridgeSettings;
  log: Logger;
  observer?: BridgeObserver;
  /**
   * Told this instance's share of the partitions each time it changes: the platform budget is
   * shared in proportion to it (docs/design.md, "Circuit breaker and rate limit").
   */
  onShareChange?: (share: PartitionShare) => void;
}

/**
 * A quarter of the heap's limit (v8 heap_size_limit: --max-old-space-size and the young
 * generation): what the rest of the process needs besides the ledger (commands in hand, parsed
 * entries, a restore's records in flight, kafkajs and HTTP buffers) and the collector's headroom
 * take the other three quarters (bench/README.md, "The ledger over years").
 */
export const LEDGER_HEAP_FRACTION = 0.25;

export function defaultLedgerMemoryBytes(): number {
  return Math.floor(getHeapStatistics().heap_size_limit * LEDGER_HEAP_FRACTION);
}

export function defaultBridgeSettings(overrides: Partial<BridgeSettings> = {}): BridgeSettings {
  return {
    groupId: 'signing-bridge',
    maxInFlight: 256,
    eventLoopDelayTargetMs: 30,
    maxPending: 2000,
    maxPendingBytes: 16 * 1024 * 1024,
    classes: DEFAULT_COMMAND_CLASSES,
    limits: { record: DEFAULT_RECORD_LIMITS, json: DEFAULT_JSON_LIMITS },
    retry: {
      maxAttempts: 8,
      maxElapsedMs: 5 * 60_000,
      policy: { initialDelayMs: 500, maxDelayMs: 30_000, multiplier: 2 },
    },
    precondition: {
      timeoutMs: 60_000,
      policy: { initialDelayMs: 250, maxDelayMs: 5_000, multiplier: 2 },
    },
    breaker: {
      failureThreshold: 20,
      openDurationMs: 5_000,
      maxOpenDurationMs: 60_000,
      halfOpenProbes: 1,
    },
    commitIntervalMs: 1_000,
    readinessTimeoutMs: 30_000,
    partitionCheckMs: 30_000,
    shutdownDeadlineMs: 15_000,
    handoverTimeoutMs: 10_000,
    deliveryMode: 'at-least-once',
    ledgerCommandsPerBizId: 100,
    ledgerReplayWindowMs: 7 * 86_400_000,
    ledgerMemoryBytes: defaultLedgerMemoryBytes(),
    crashLoopLimit: 1,
    source: 'signing-bridge',
    ...overrides,
  };
}

/**
 * @throws ConfigInvalid naming every setting out of range on its own. Rules between settings
 * (maxPending against maxInFlight, say) are the configuration's (src/config/cross-checks.ts),
 * which names the variables; a bridge built in code is trusted with them.
 */
export function checkSettings(settings: BridgeSettings): void {
  const rules: Array<[string, boolean, string]> = [
    ['maxInFlight', settings.maxInFlight >= 1, 'at least 1'],
    ['retry.maxAttempts', settings.retry.maxAttempts >= 1, 'at least 1'],
    ['commitIntervalMs', settings.commitIntervalMs > 0, 'positive'],
    ['ledgerCommandsPerBizId', settings.ledgerCommandsPerBizId >= 1, 'at least 1'],
    ['groupId', settings.groupId.length > 0, 'not empty'],
  ];
  const variables = [
    ...rules.filter(([, ok]) => !ok).map(([path, , rule]) => ({ path, rule })),
    ...classesWithoutWeight(settings.classes).map(({ name, types }) => ({
      path: `classes.weights.${name}`,
      rule: `a whole number from 1 to ${MAX_CLASS_WEIGHT} (the class of ${types.join(', ')})`,
    })),
  ];
  if (variables.length > 0) {
    const list = variables.map((v) => `${v.path} must be ${v.rule}`).join('; ');
    throw new ConfigInvalid(`bridge settings invalid: ${list}`, { details: { variables } });
  }
}
