/**
 * The platform budget, throttling and priority classes (docs/design.md, "Circuit breaker and
 * rate limit", "Priority classes"), on the bridge's registry. Labels are bounded: operations, and
 * the classes of COMMAND_CLASSES (six types, so six classes at most).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CallInfo } from '../api-client/index.js';
import { PlatformRejected } from '../errors.js';
import { CellHistogram, Cells } from './metric-cells.js';

/** The label of calls without a priority (not made for a command). */
const NO_CLASS = 'none';

export interface ClassLoad {
  readonly name: string;
  readonly running: number;
  readonly pending: number;
}

export interface BudgetMetrics {
  /** One HTTP attempt: how long it waited for a rate token, and whether it was throttled. */
  onCall(info: CallInfo): void;
  /** This instance's share of SIGNING_RPS, requests per second. */
  share(requestsPerSecond: number): void;
  /** The requests per second in force: the share, lowered for a while after throttling. */
  rateInForce(requestsPerSecond: number): void;
  classLoad(byClass: readonly ClassLoad[]): void;
}

export function budgetMetrics(registry: Registry, prefix: string): BudgetMetrics {
  const registers = [registry];
  const tokenWait = new CellHistogram({
    registers,
    name: `${prefix}rate_token_wait_seconds`,
    help: 'How long an HTTP attempt waited for a token of the platform rate limit, by priority class',
    labelNames: ['class'],
    buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  });
  const throttled = new Counter({
    registers,
    name: `${prefix}platform_throttled_total`,
    help: 'Throttling answers of the platform (429, too many requests), by operation',
    labelNames: ['operation'],
  });
  const share = new Gauge({
    registers,
    name: `${prefix}budget_share_rps`,
    help: "This instance's share of SIGNING_RPS, the group's budget, in requests per second",
  });
  const rate = new Gauge({
    registers,
    name: `${prefix}rate_limit_rps`,
    help: 'Requests per second in force: the share, lowered for a while after throttling answers',
  });
  const backlog = new Gauge({
    registers,
    name: `${prefix}class_backlog`,
    help: 'Commands queued, running or waiting to retry, by priority class',
    labelNames: ['class'],
  });
  const running = new Gauge({
    registers,
    name: `${prefix}class_running`,
    help: 'Commands running in a slot (MAX_IN_FLIGHT), by priority class',
    labelNames: ['class'],
  });
  const tokenWaitOf = new Cells((name) => tokenWait.labels({ class: name }));
  return {
    onCall({ operation, priority, tokenWaitMs, error }) {
      tokenWaitOf.get(priority || NO_CLASS).observe(tokenWaitMs / 1000);
      if (error instanceof PlatformRejected && error.details.family === 'throttled') {
        throttled.inc({ operation });
      }
    },
    share: (requestsPerSecond) => share.set(requestsPerSecond),
    rateInForce: (requestsPerSecond) => rate.set(requestsPerSecond),
    classLoad(byClass) {
      for (const { name, running: own, pending } of byClass) {
        backlog.set({ class: name }, pending);
        running.set({ class: name }, own);
      }
    },
  };
}
