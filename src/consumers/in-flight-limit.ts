/**
 * How many commands may run at once, by how busy the event loop is. Commands in flight cost the
 * loop a little each whenever their calls answer; past what the CPU can serve, more of them add
 * no throughput, only delay: every timer, heartbeat, probe and answer waits behind them (at 512
 * in flight on two cores, the loop's p50 delay was 80 ms and a 50 ms platform call took 300 ms).
 * So the limit falls by a quarter while the loop's delay is over its target and climbs back by a
 * step while it is under half of it and every slot is taken, between a floor and MAX_IN_FLIGHT.
 * A slow platform leaves the loop idle: the limit then stays at MAX_IN_FLIGHT.
 */
import { type ELDHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** The timer the delay is measured with, as prom-client's `nodejs_eventloop_lag_*` does. */
export const LOOP_TIMER_MS = 10;
const TICK_MS = 200;
const FLOOR = 32;
const DECREASE = 0.75;
const INCREASE_STEPS = 32;

export interface InFlightPolicy {
  /** MAX_IN_FLIGHT: the limit never goes above it. */
  readonly ceiling: number;
  /** The loop's p50 delay over a tick, as its metric reads it (≥ LOOP_TIMER_MS); 0: off. */
  readonly targetDelayMs: number;
}

export interface LoopObservation {
  /** The p50 interval of the 10 ms timer over the last tick, in ms. */
  readonly delayMs: number;
  /** Whether every slot was taken with commands waiting for one. */
  readonly saturated: boolean;
}

export function floorOf(policy: InFlightPolicy): number {
  return Math.min(policy.ceiling, FLOOR);
}

/** The next limit: a pure step of the control loop. */
export function nextInFlightLimit(
  limit: number,
  policy: InFlightPolicy,
  seen: LoopObservation,
): number {
  const { ceiling, targetDelayMs } = policy;
  if (targetDelayMs === 0) return ceiling;
  const floor = floorOf(policy);
  if (seen.delayMs > targetDelayMs) return Math.max(floor, Math.floor(limit * DECREASE));
  const calm = seen.delayMs - LOOP_TIMER_MS < (targetDelayMs - LOOP_TIMER_MS) / 2;
  if (calm && seen.saturated) {
    return Math.min(ceiling, limit + Math.max(1, Math.ceil(ceiling / INCREASE_STEPS)));
  }
  return Math.min(ceiling, Math.max(floor, limit));
}

/** What the governor steers: the scheduler. */
export interface InFlightTarget {
  readonly inFlightLimit: number;
  readonly saturated: boolean;
  limitInFlight(limit: number): void;
}

/** Applies nextInFlightLimit every tick from the loop's measured delay. */
export class InFlightGovernor {
  readonly #policy: InFlightPolicy;
  readonly #target: InFlightTarget;
  #histogram: ELDHistogram | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(policy: InFlightPolicy, target: InFlightTarget) {
    this.#policy = policy;
    this.#target = target;
  }

  start(): void {
    if (this.#policy.targetDelayMs === 0 || this.#timer) return;
    const histogram = monitorEventLoopDelay({ resolution: LOOP_TIMER_MS });
    histogram.enable();
    this.#histogram = histogram;
    this.#timer = setInterval(() => this.#tick(histogram), TICK_MS).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#histogram?.disable();
    this.#histogram = undefined;
  }

  #tick(histogram: ELDHistogram): void {
    // No sample yet (the tick came first): nothing to go by.
    if (histogram.count === 0) return;
    const delayMs = histogram.percentile(50) / 1e6;
    histogram.reset();
    const target = this.#target;
    const seen = { delayMs, saturated: target.saturated };
    const next = nextInFlightLimit(target.inFlightLimit, this.#policy, seen);
    if (next !== target.inFlightLimit) target.limitInFlight(next);
  }
}
