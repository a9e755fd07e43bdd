/**
 * Prometheus metrics, fed from the bridge's observer callbacks and the client's report of each
 * HTTP attempt (docs/observability.md lists them). Label values are bounded: command types,
 * outcomes, operations, the platform's code table, the bridge's error codes, owned partitions.
 * Node's default metrics keep their standard, unprefixed names (process_*, nodejs_*).
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { type CallInfo, OUTAGE_CAUSES } from '../api-client/index.js';
import type { BridgeObserver, CircuitState } from '../consumers/index.js';
import { DEAD_LETTER_REASONS } from '../producers/dead-letter.js';
import { COMMAND_TYPES } from '../schemas/messages/index.js';
import { type BudgetMetrics, budgetMetrics } from './budget-metrics.js';
import { callOutcome } from './call-outcome.js';
import { kafkaMetrics, type ServiceStatus } from './kafka-metrics.js';
import { CellHistogram, Cells, PairCells, PairCounter } from './metric-cells.js';
import { answerCode } from './platform-answers.js';

export interface Metrics {
  readonly registry: Registry;
  readonly observer: BridgeObserver;
  readonly onCall: (info: CallInfo) => void;
  /** The platform budget's share and rate in force, which the composition root reports. */
  readonly budget: Pick<BudgetMetrics, 'share' | 'rateInForce'>;
}

const PREFIX = 'signing_bridge_';
const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };
/**
 * Gauges prom-client names with `_total`, which Prometheus keeps for counters (promtool refuses
 * them); their unsuffixed twins (by type) remain.
 */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export function createMetrics(status?: ServiceStatus): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  const m = instruments(registry);
  const budget = budgetMetrics(registry, PREFIX);
  const kafka = kafkaMetrics(registry, PREFIX, status);
  // What every command and call updates, found by label values (metric-cells.ts).
  const commandDuration = new PairCells((type, outcome) =>
    m.commandDuration.labels({ type, outcome }),
  );
  const callDuration = new Cells((operation) => m.callDuration.labels({ operation }));
  const observer: BridgeObserver = {
    commandFinished({ type, outcome, durationMs, errorCode }) {
      m.commands.inc(type, outcome);
      commandDuration.get(type, outcome).observe(durationMs / 1000);
      if (errorCode === 'SB_ERR_COMMAND_OUTCOME_UNKNOWN') m.outcomesUnknown.inc({ type });
    },
    deadLettered: ({ type, reason }) => m.deadLetters.inc({ type, reason }),
    retryScheduled: ({ type, reason }) => m.retries.inc({ type, reason }),
    recordForwarded: ({ type }) => m.forwarded.inc({ type }),
    consumptionPaused: (paused, reason) => m.paused.set({ reason }, paused ? 1 : 0),
    breakerStateChanged(state, cause) {
      m.circuit.set(CIRCUIT_VALUE[state]);
      for (const each of OUTAGE_CAUSES) {
        m.outage.set({ cause: each }, state !== 'closed' && each === cause ? 1 : 0);
      }
    },
    load(inFlight, pending, byClass = []) {
      m.inFlight.set(inFlight);
      m.pending.set(pending);
      budget.classLoad(byClass);
    },
    inFlightLimit: (limit) => m.inFlightLimit.set(limit),
    ledgerSize: (bizIds) => m.ledgerBizIds.set(bizIds),
    ledgerWindows(windows, configuredSeconds) {
      // Partitions given up leave the gauge: the label set stays the partitions owned.
      m.ledgerEffectiveWindow.reset();
      for (const [partition, seconds] of windows) {
        m.ledgerEffectiveWindow.set({ partition: String(partition) }, seconds);
      }
      m.ledgerReplayWindow.set(configuredSeconds);
    },
    hotKeys(byType) {
      for (const { type, longest, heldBack } of byType) {
        m.keyQueueLongest.set({ type }, longest);
        m.keysHeldBack.set({ type }, heldBack);
      }
    },
    leaseChanged(held, reason) {
      if (!held && reason !== undefined) m.leaseLost.inc({ reason });
    },
    kafkaWritesFailing: (failing) => m.writesFailing.set(failing ? 1 : 0),
    kafkaWriteFailed: (kafkaError) => m.writeErrors.inc({ error: kafkaError }),
    kafkaWritesStalled(stalls) {
      // The stalls found now, none once a write goes through.
      m.writesStalled.reset();
      for (const { topic, partition, problem } of stalls) {
        m.writesStalled.set({ topic, partition, problem }, 1);
      }
    },
    kafkaWritesRefused(kafkaError) {
      // One series, the refusal in force; none once Kafka takes the writes again.
      m.writesRefused.reset();
      if (kafkaError !== undefined) m.writesRefused.set({ error: kafkaError }, 1);
    },
    keyHeldBack: ({ type }) => m.keyHolds.inc({ type }),
    keyRewound: ({ type, partitions }) => m.keyRewinds.inc({ type }, partitions),
    partitionLags: (lags) => kafka.partitionLags(lags),
  };
  const onCall = (info: CallInfo) => {
    const { operation } = info;
    m.calls.inc(operation, callOutcome(info.error));
    callDuration.get(operation).observe(info.durationMs / 1000);
    budget.onCall(info);
    const code = answerCode(info);
    if (code !== undefined) m.answers.inc(operation, code);
  };
  return { registry, observer, onCall, budget };
}

function instruments(registers: Registry) {
  const common = { registers: [registers] };
  const deadLetters = new Counter({
    ...common,
    name: `${PREFIX}dead_letters_total`,
    help: 'Command records copied to the dead-letter topic, by type and reason (the error code)',
    labelNames: ['type', 'reason'],
  });
  // At 0 from the start: the alert's increase() sees the first dead letter of each.
  for (const type of COMMAND_TYPES) {
    for (const reason of DEAD_LETTER_REASONS) deadLetters.inc({ type, reason }, 0);
  }
  return {
    deadLetters,
    commands: new PairCounter({
      ...common,
      name: `${PREFIX}commands_total`,
      help: 'Commands ended, by type and how they ended',
      labelNames: ['type', 'outcome'],
    }),
    commandDuration: new CellHistogram({
      ...common,
      name: `${PREFIX}command_duration_seconds`,
      help: 'From the first run of a command to its end, retries included',
      labelNames: ['type', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    }),
    outcomesUnknown: new Counter({
      ...common,
      name: `${PREFIX}outcomes_unknown_total`,
      help: 'Commands that ended because a call was sent and its outcome is unknown (SB_ERR_COMMAND_OUTCOME_UNKNOWN): the bridge did not call again; each needs a look',
      labelNames: ['type'],
    }),
    retries: new Counter({
      ...common,
      name: `${PREFIX}retries_scheduled_total`,
      help: 'Runs of a command scheduled again, by why (transient, not-found, or outage: the platform down)',
      labelNames: ['type', 'reason'],
    }),
    forwarded: new Counter({
      ...common,
      name: `${PREFIX}records_forwarded_total`,
      help: 'Command records forwarded to the partition their key belongs to (a producer partitioning by another hash than murmur2), by type',
      labelNames: ['type'],
    }),
    calls: new PairCounter({
      ...common,
      name: `${PREFIX}platform_calls_total`,
      help: 'HTTP attempts to the signing platform, by operation and outcome',
      labelNames: ['operation', 'outcome'],
    }),
    answers: new PairCounter({
      ...common,
      name: `${PREFIX}platform_answers_total`,
      help: "The platform's answers, by operation and code (its code table's codes, 0 for success, other)",
      labelNames: ['operation', 'code'],
    }),
    callDuration: new CellHistogram({
      ...common,
      name: `${PREFIX}platform_call_duration_seconds`,
      help: 'Duration of one HTTP attempt to the signing platform',
      labelNames: ['operation'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
    inFlight: new Gauge({
      ...common,
      name: `${PREFIX}in_flight`,
      help: 'Commands running now',
    }),
    inFlightLimit: new Gauge({
      ...common,
      name: `${PREFIX}in_flight_limit`,
      help: 'Commands that may run at once now: MAX_IN_FLIGHT, or fewer while the event loop is too busy',
    }),
    pending: new Gauge({
      ...common,
      name: `${PREFIX}pending`,
      help: 'Commands queued, running or waiting to retry',
    }),
    paused: new Gauge({
      ...common,
      name: `${PREFIX}consumption_paused`,
      help: 'Whether fetching is paused (1) or not (0), by reason (backpressure: the topics of a full priority class)',
      labelNames: ['reason'],
    }),
    circuit: new Gauge({
      ...common,
      name: `${PREFIX}circuit_state`,
      help: 'Circuit breaker state: 0 closed, 1 half-open, 2 open',
    }),
    leaseLost: startingAtZero(
      new Counter({
        ...common,
        name: `${PREFIX}leases_lost_total`,
        help: 'Times this instance gave every partition up at once, writing nothing, by why: expired (the group coordinator did not answer for 6 s) or crashed (the Kafka consumer left the group)',
        labelNames: ['reason'],
      }),
      [{ reason: 'expired' }, { reason: 'crashed' }],
    ),
    writesFailing: new Gauge({
      ...common,
      name: `${PREFIX}kafka_writes_failing`,
      help: 'Whether writing to Kafka has failed for longer than 5 s and not gone through since (1: the bridge is not ready, /readyz names the error under kafka-writes), else 0',
    }),
    writeErrors: new Counter({
      ...common,
      name: `${PREFIX}kafka_write_errors_total`,
      help: "Sends to Kafka that failed for a reason that may pass (the outbox sends them again), by Kafka's error code or the client's error name (NOT_ENOUGH_REPLICAS, KAFKA_STORAGE_ERROR, UNKNOWN_TOPIC_OR_PARTITION, KafkaJSConnectionError...)",
      labelNames: ['error'] as const,
    }),
    writesStalled: new Gauge({
      ...common,
      name: `${PREFIX}kafka_write_stalled`,
      help: 'While writes to Kafka have failed for more than 5 s: 1 per partition they are stuck on, by topic, partition (all: the whole topic) and problem (topic-missing, partition-missing, no-leader, under-min-isr, offline-replica; unexplained, topic and partition unknown, when the cluster looks well); no series otherwise',
      labelNames: ['topic', 'partition', 'problem'] as const,
    }),
    writesRefused: new Gauge({
      ...common,
      name: `${PREFIX}kafka_writes_refused`,
      help: "1 while Kafka refuses the bridge's writes until someone acts, by Kafka's error code (TOPIC_AUTHORIZATION_FAILED, INVALID_TIMESTAMP...): no command starts, the endings decided wait to be written, /readyz names kafka-refused; no series otherwise",
      labelNames: ['error'] as const,
    }),
    outage: withLabels(
      new Gauge({
        ...common,
        name: `${PREFIX}platform_outage`,
        help: 'Whether the platform is taken for down (1: circuit open or probing) and why: auth (credentials refused), unreachable, no-answer, not-the-platform (a maintenance page or gateway error), unreadable-answer, platform-error (21990001)',
        labelNames: ['cause'],
      }),
      OUTAGE_CAUSES.map((cause) => ({ cause })),
    ),
    ledgerBizIds: new Gauge({
      ...common,
      name: `${PREFIX}ledger_bizids`,
      help: 'BizIds the ledger holds an entry of, in the partitions this instance owns',
    }),
    ledgerEffectiveWindow: new Gauge({
      ...common,
      name: `${PREFIX}ledger_effective_window_seconds`,
      help: 'Per owned ledger partition, how far back it remembers: LEDGER_REPLAY_WINDOW, or less where its memory bound (LEDGER_MEMORY_BYTES) evicted entries; older records are refused as expired',
      labelNames: ['partition'] as const,
    }),
    ledgerReplayWindow: new Gauge({
      ...common,
      name: `${PREFIX}ledger_replay_window_seconds`,
      help: 'LEDGER_REPLAY_WINDOW, in seconds',
    }),
    // Hot keys (docs/design.md): labelled by command type only, never by bizId.
    keyQueueLongest: new Gauge({
      ...common,
      name: `${PREFIX}key_queue_longest`,
      help: 'The most commands of a type one bizId (or the records a partition forwards) holds in hand',
      labelNames: ['type'],
    }),
    keysHeldBack: new Gauge({
      ...common,
      name: `${PREFIX}keys_held_back`,
      help: 'BizIds with commands of a type left in Kafka, their share being in hand',
      labelNames: ['type'],
    }),
    keyHolds: new Counter({
      ...common,
      name: `${PREFIX}key_holds_total`,
      help: 'Times a bizId reached its share of commands of a type and its next ones were left in Kafka',
      labelNames: ['type'],
    }),
    keyRewinds: new Counter({
      ...common,
      name: `${PREFIX}key_rewinds_total`,
      help: "Partitions fetched again from a held-back bizId's first command left in Kafka",
      labelNames: ['type'],
    }),
  };
}

/** A gauge with every label set it can have at 0, so that a dashboard sees the series at once. */
function withLabels<T extends string>(gauge: Gauge<T>, labels: Record<T, string>[]): Gauge<T> {
  for (const set of labels) gauge.set(set, 0);
  return gauge;
}

/** A counter at 0 for each label set from the start: an alert's increase() sees its first count. */
function startingAtZero<T extends string>(
  counter: Counter<T>,
  labels: Record<T, string>[],
): Counter<T> {
  for (const set of labels) counter.inc(set, 0);
  return counter;
}
