import type { LatencyConfig } from './config.js';

/** One latency draw in milliseconds; `random` returns values in [0, 1) like Math.random. */
export function sampleLatency(latency: LatencyConfig | undefined, random: () => number): number {
  if (latency === undefined) return 0;
  if ('fixedMs' in latency) return latency.fixedMs;
  if ('minMs' in latency) return latency.minMs + random() * (latency.maxMs - latency.minMs);
  return Math.max(0, latency.meanMs + latency.stdDevMs * standardNormal(random));
}

/** Box-Muller transform; 1 - random() lies in (0, 1], so the logarithm stays finite. */
function standardNormal(random: () => number): number {
  const radius = Math.sqrt(-2 * Math.log(1 - random()));
  return radius * Math.cos(2 * Math.PI * random());
}
