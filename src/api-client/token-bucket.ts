import { sleep as defaultSleep, type Sleep } from '../retry/retry.js';

export interface RateLimit {
  /** Milliseconds between tokens: 1000 / ratePerSecond. */
  intervalMs: number;
  /** Tokens that may be granted at once after an idle period. */
  burst: number;
}

export interface Reservation {
  /** When the reserved token may be used. */
  dueAt: number;
  /** The new theoretical arrival time to keep for the next reservation. */
  tat: number;
}

/**
 * One reservation in the Generic Cell Rate Algorithm, the single-number form of a token bucket.
 * `tat` is when the bucket would be full again if nothing more were taken (start with -Infinity).
 * Pure, so the rate bound can be checked without timers.
 */
export function reserve(tat: number, now: number, limit: RateLimit): Reservation {
  const next = Math.max(tat, now) + limit.intervalMs;
  return { dueAt: Math.max(now, next - limit.burst * limit.intervalMs), tat: next };
}

export interface TokenBucketOptions {
  /** 0 or Infinity means unlimited. */
  ratePerSecond: number;
  burst?: number;
  now?: () => number;
  sleep?: Sleep;
}

/**
 * Caps the requests per second of one HTTP client. Each take() reserves its slot synchronously,
 * so callers are served in call order and each waits only for its own slot.
 */
export class TokenBucket {
  readonly #limit: RateLimit | undefined;
  readonly #now: () => number;
  readonly #sleep: Sleep;
  #tat = Number.NEGATIVE_INFINITY;

  constructor({
    ratePerSecond,
    burst = 1,
    now = () => performance.now(),
    sleep = defaultSleep,
  }: TokenBucketOptions) {
    if (!(ratePerSecond >= 0) || !Number.isInteger(burst) || burst < 1) {
      throw new RangeError(`invalid rate limit: ${JSON.stringify({ ratePerSecond, burst })}`);
    }
    const unlimited = ratePerSecond === 0 || ratePerSecond === Number.POSITIVE_INFINITY;
    this.#limit = unlimited ? undefined : { intervalMs: 1000 / ratePerSecond, burst };
    this.#now = now;
    this.#sleep = sleep;
  }

  /**
   * Resolves when the caller may send. If the signal aborts while waiting, the slot is not handed
   * back: later callers already hold later slots, and a lost slot can only make us slower.
   */
  async take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#limit === undefined) return;
    const now = this.#now();
    const { dueAt, tat } = reserve(this.#tat, now, this.#limit);
    this.#tat = tat;
    // Timers have millisecond resolution; rounding up keeps a fractional slot from firing early.
    if (dueAt > now) await this.#sleep(Math.ceil(dueAt - now), signal);
  }
}
