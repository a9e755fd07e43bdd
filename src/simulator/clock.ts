/**
 * Time as the simulated platform tells it. Timestamps use the spec's `yyyy-MM-dd HH:mm:ss` in a
 * configurable offset from UTC; being fixed-width, two of them compare correctly as strings.
 */
import { formatTimestamp } from '../schemas/platform/primitives.js';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** The spec's timestamp of `at` (default: now). */
  timestamp(at?: number): string;
}

export function createClock(now: () => number = Date.now, utcOffsetMinutes = 0): Clock {
  // Timestamps have whole seconds; one formatting per second serves every request within it.
  let second = Number.NaN;
  let formatted = '';
  return {
    now,
    timestamp(at = now()) {
      const s = Math.floor(at / 1000);
      if (s !== second) {
        second = s;
        formatted = formatTimestamp(new Date(s * 1000), utcOffsetMinutes);
      }
      return formatted;
    },
  };
}
