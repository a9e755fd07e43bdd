export interface BackoffPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  multiplier: number;
}

/**
 * The upper bound of the delay before retry number `attempt` (0-based):
 * min(maxDelayMs, initialDelayMs * multiplier^attempt). It never decreases as `attempt` grows.
 */
export function backoffCap(policy: BackoffPolicy, attempt: number): number {
  assertPolicy(policy);
  // 0 * Infinity is NaN: a zero initial delay stays zero however large the exponent gets.
  if (policy.initialDelayMs === 0) return 0;
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** attempt);
}

/**
 * AWS "full jitter": a uniformly random delay in [0, cap). Spreading retries over the whole
 * range keeps many clients that failed together from retrying together.
 */
export function fullJitterDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  return random() * backoffCap(policy, attempt);
}

/**
 * `ms` lengthened by a random part of up to `fraction` of it: waiters released together (by a
 * circuit opening, say) do not all come back at the same moment.
 */
export function spread(ms: number, fraction: number, random: () => number = Math.random): number {
  return ms * (1 + random() * fraction);
}

function assertPolicy({ initialDelayMs, maxDelayMs, multiplier }: BackoffPolicy): void {
  const valid =
    Number.isFinite(initialDelayMs) &&
    initialDelayMs >= 0 &&
    Number.isFinite(maxDelayMs) &&
    maxDelayMs >= 0 &&
    Number.isFinite(multiplier) &&
    multiplier >= 1;
  if (!valid) {
    throw new RangeError(
      `invalid backoff policy: ${JSON.stringify({ initialDelayMs, maxDelayMs, multiplier })}`,
    );
  }
}
