/**
 * Prometheus metrics, fed from the bridge's observer callbacks and the client's report of each
 * HTTP attempt. Label values are bounded: command types, outcomes, operations and code families.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { CallInfo } from '../api-client/index.js';
import type { BridgeObserver, CircuitState } from '../consumers/index.js';
import { type BudgetMetrics, budgetMetrics } from './budget-metrics.js';
import { callOutcome } from './call-outcome.js';

export interface Metrics {
  readonly registry: Registry;
  readonly observer: BridgeObserver;
  readonly onCall: (info: CallInfo) => void;
  /** The platform budget's share and rate in force, which the composition root reports. */
  readonly budget: Pick<BudgetMetrics, 'share' | 'rateInForce'>;
}

const PREFIX = 'signing_bridge_';
const CIRCUIT_VALUE: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const m = instruments(registry);
  const budget = budgetMetrics(registry, PREFIX);
  const observer: BridgeObserver = {
    commandFinished({ type, outcome, durationMs }) {
      m.commands.inc({ type, outcome });
      m.commandDuration.observe({ type, outcome }, durationMs / 1000);
    },
    retryScheduled: ({ type, reason }) => m.retries.inc({ type, reason }),
    recordForwarded: ({ type }) => m.forwarded.inc({ type }),
    consumptionPaused: (paused, reason) => m.paused.set({ reason }, paused ? 1 : 0),
    breakerStateChanged: (state) => m.circuit.set(CIRCUIT_VALUE[state]),
    load(inFlight, pending, byClass = []) {
      m.inFlight.set(inFlight);
      m.pending.set(pending);
      budget.classLoad(byClass);
    },
  };
  const onCall = (info: CallInfo) => {
    const { operation } = info;
    m.calls.inc({ operation, outcome: callOutcome(info.error) });
    m.callDuration.observe({ operation }, info.durationMs / 1000);
    budget.onCall(info);
  };
  return { registry, observer, onCall, budget };
}

function instruments(registers: Registry) {
  const common = { registers: [registers] };
  return {
    commands: new Counter({
      ...common,
      name: `${PREFIX}commands_total`,
      help: 'Commands ended, by type and how they ended',
      labelNames: ['type', 'outcome'],
    }),
    commandDuration: new Histogram({
      ...common,
      name: `${PREFIX}command_duration_seconds`,
      help: 'From the first run of a command to its end, retries included',
      labelNames: ['type', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    }),
    retries: new Counter({
      ...common,
      name: `${PREFIX}retries_scheduled_total`,
      help: 'Runs of a command scheduled again, by why (transient or not-found)',
      labelNames: ['type', 'reason'],
    }),
    forwarded: new Counter({
      ...common,
      name: `${PREFIX}records_forwarded_total`,
      help: 'Command records forwarded to the partition their key belongs to (a producer partitioning by another hash than murmur2), by type',
      labelNames: ['type'],
    }),
    calls: new Counter({
      ...common,
      name: `${PREFIX}platform_calls_total`,
      help: 'HTTP attempts to the signing platform, by operation and outcome',
      labelNames: ['operation', 'outcome'],
    }),
    callDuration: new Histogram({
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
  };
}
