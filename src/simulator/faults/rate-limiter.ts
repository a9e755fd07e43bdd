/**
 * The simulator's requests-per-second limit: a token bucket refilled continuously at `rate`
 * tokens a second, holding at most max(rate, 2). Deliberately not shared with the api-client's
 * own pacing, so a mistake in one cannot hide the same mistake in the other.
 */
export type Admission =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly retryAfterMs: number };

/** Two tokens let a request arrive up to one interval early, as jitter on a paced stream does. */
const MIN_CAPACITY = 2;
/** Float rounding must not refuse a request that arrives exactly on time. */
const EPSILON = 1e-9;

export class RateLimiter {
  readonly #tokensPerMs: number;
  readonly #capacity: number;
  #tokens: number;
  #updatedAt: number | undefined;

  constructor(requestsPerSecond: number) {
    this.#tokensPerMs = requestsPerSecond / 1000;
    this.#capacity = Math.max(requestsPerSecond, MIN_CAPACITY);
    this.#tokens = this.#capacity;
  }

  /** Takes a token for a request arriving at `now` (ms, monotonic), or says when one will be. */
  admit(now: number): Admission {
    const elapsed = this.#updatedAt === undefined ? 0 : Math.max(0, now - this.#updatedAt);
    this.#tokens = Math.min(this.#capacity, this.#tokens + elapsed * this.#tokensPerMs);
    this.#updatedAt = now;
    if (this.#tokens >= 1 - EPSILON) {
      this.#tokens -= 1;
      return { admitted: true };
    }
    return { admitted: false, retryAfterMs: (1 - this.#tokens) / this.#tokensPerMs };
  }
}
