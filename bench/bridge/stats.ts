/** The few statistics the benchmark reports, as plain functions. */

export const round = (n: number, digits = 2): number => {
  const scale = 10 ** digits;
  return Math.round(n * scale) / scale;
};

export interface Percentiles {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

/** Nearest-rank percentiles, in the values' unit; zeros for no values. */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
  return { p50: round(at(0.5) ?? 0), p99: round(at(0.99) ?? 0), max: round(sorted.at(-1) ?? 0) };
}

/** Least-squares slope of y over x; 0 for fewer than two points. */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const [x, y] of points) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}
