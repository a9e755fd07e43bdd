/**
 * Throttling slows the whole client, not just the call that was refused: additive increase,
 * multiplicative decrease (AIMD) of the rate in force, as a factor of the limit the caller set.
 * A throttling answer halves the factor; each second the factor grows back by a tenth of the
 * limit, and slowly (over about five seconds) through the last tenth below the rate that was last
 * refused, so a limit set above what the platform really allows settles just under it, probing,
 * instead of spending requests on refusals. Pure: the caller says when a second has passed.
 */
export const ADAPTIVE = {
  /** A throttling answer multiplies the factor by this... */
  decrease: 0.5,
  /** ...but never below this. */
  floor: 0.05,
  /** Each second, the factor grows by this... */
  increase: 0.1,
  /**
   * ...or, from `probeFrom` of the factor that was last refused up to that factor, by this share
   * of it only.
   */
  probe: 0.02,
  probeFrom: 0.9,
  /**
   * After a decrease, answers to requests sent before it say nothing new: at most one decrease in
   * this long (or in the platform's retry-after, when longer).
   */
  calmMs: 1_000,
} as const;

export class AdaptiveRate {
  #factor = 1;
  /** The factor in force at the last throttling answer. */
  #refusedAt = 1;
  #calmUntil = Number.NEGATIVE_INFINITY;

  /** The share of the limit in force: from ADAPTIVE.floor to 1. */
  get factor(): number {
    return this.#factor;
  }

  /** A throttling answer came at `now` (ms); returns whether the factor went down. */
  throttled(now: number, retryAfterMs = 0): boolean {
    if (now < this.#calmUntil) return false;
    this.#refusedAt = this.#factor;
    this.#factor = Math.max(ADAPTIVE.floor, this.#factor * ADAPTIVE.decrease);
    this.#calmUntil = now + Math.max(ADAPTIVE.calmMs, retryAfterMs);
    return true;
  }

  /** A second has passed; returns whether the factor went up (false once it is back at 1). */
  tick(): boolean {
    if (this.#factor >= 1) return false;
    // Tenths added up miss 0.9 by a rounding error.
    const from = this.#refusedAt * ADAPTIVE.probeFrom - 1e-9;
    const near = this.#factor >= from && this.#factor < this.#refusedAt - 1e-9;
    const step = near ? this.#refusedAt * ADAPTIVE.probe : ADAPTIVE.increase;
    this.#factor = Math.min(1, this.#factor + step);
    return true;
  }
}
