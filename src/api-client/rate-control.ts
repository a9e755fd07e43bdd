/**
 * The rate every HTTP attempt of one client waits for: the limit its owner sets (all of a
 * budget, or this process's share of one), lowered for a while after the platform throttles
 * (adaptive-rate.ts), and paused for as long as a throttling answer's `retry-after` asks. Tokens
 * go to waiting calls in weighted fair order of their priority (fair-limiter.ts).
 */
import { PlatformRejected } from '../errors.js';
import { AdaptiveRate } from './adaptive-rate.js';
import { FairLimiter } from './fair-limiter.js';

/** A `retry-after` longer than this is taken as this: a bogus value must not stop the client. */
export const MAX_RETRY_AFTER_MS = 60_000;
const TICK_MS = 1_000;

export interface RateControlOptions {
  /** The limit; Infinity: unlimited (no adaptive slow-down, only `retry-after` pauses). */
  readonly requestsPerSecond: number;
  readonly weights?: ReadonlyMap<string, number>;
  /** Told the rate in force whenever it changes. */
  readonly onRate?: ((requestsPerSecond: number) => void) | undefined;
}

export class RateControl {
  readonly #limiter: FairLimiter;
  readonly #adaptive = new AdaptiveRate();
  readonly #onRate: ((requestsPerSecond: number) => void) | undefined;
  #limit: number;
  #ticker: NodeJS.Timeout | undefined;

  constructor({ requestsPerSecond, weights, onRate }: RateControlOptions) {
    this.#limit = requestsPerSecond;
    this.#onRate = onRate;
    this.#limiter = new FairLimiter({ ratePerSecond: this.inForce, weights });
  }

  /** Requests per second allowed now: the limit times the adaptive factor. */
  get inForce(): number {
    return Number.isFinite(this.#limit) ? this.#limit * this.#adaptive.factor : this.#limit;
  }

  /** Resolves with the milliseconds waited once the attempt may be sent. */
  take(priority: string | undefined, signal: AbortSignal | undefined): Promise<number> {
    return this.#limiter.take(priority, signal);
  }

  /** A new limit (Infinity: unlimited; 0: nothing is sent until it is raised). */
  setLimit(requestsPerSecond: number): void {
    if (!(requestsPerSecond >= 0)) throw new RangeError(`invalid rate: ${requestsPerSecond}`);
    this.#limit = requestsPerSecond;
    this.#apply();
  }

  /** An attempt ended with `error` (undefined: it succeeded) and the answer's `retry-after`. */
  answered(error: unknown, retryAfter: string | undefined): void {
    if (!(error instanceof PlatformRejected && error.details.family === 'throttled')) return;
    const now = performance.now();
    const pauseMs = retryAfterMs(retryAfter, Date.now());
    if (pauseMs > 0) this.#limiter.pauseUntil(now + pauseMs);
    if (!Number.isFinite(this.#limit) || !this.#adaptive.throttled(now, pauseMs)) return;
    this.#apply();
    this.#ticker ??= setInterval(() => {
      if (this.#adaptive.tick()) this.#apply();
      else this.close();
    }, TICK_MS).unref();
  }

  close(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #apply(): void {
    this.#limiter.setRate(this.inForce);
    this.#onRate?.(this.inForce);
  }
}

/**
 * `retry-after` in milliseconds: delta-seconds or an HTTP date; 0 when absent or unreadable, at
 * most MAX_RETRY_AFTER_MS.
 */
export function retryAfterMs(value: string | undefined, nowMs: number): number {
  if (value === undefined) return 0;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - nowMs;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS) : 0;
}
