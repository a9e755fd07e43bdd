/**
 * What the platform received, second by second, read from the simulator's call log (a ring of
 * its last calls, 10,000 by default): polled often enough that no second leaves the ring unread.
 * Each poll counts the whole seconds the ring covers (not its oldest, which the ring may have cut,
 * nor the current one) and keeps the latest count of each.
 */
import type { AdminClient } from '../../src/simulator/index.js';

const POLL_MS = 15_000;

export interface Second {
  /** Epoch second. */
  readonly second: number;
  readonly requests: number;
  /** Answered 429 (too many requests). */
  readonly throttled: number;
}

export class PlatformRate {
  readonly #admin: AdminClient;
  readonly #seconds = new Map<number, { requests: number; throttled: number }>();
  readonly #timer: NodeJS.Timeout;
  #polling: Promise<void> = Promise.resolve();

  constructor(admin: AdminClient) {
    this.#admin = admin;
    this.#timer = setInterval(() => this.#poll(), POLL_MS);
  }

  /** Reads the log once more and stops polling. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#poll();
    await this.#polling;
  }

  /** Every second from `fromMs` up to (not including) `toMs`, seconds without calls as 0. */
  series(fromMs: number, toMs: number): Second[] {
    const seconds: Second[] = [];
    for (let s = Math.floor(fromMs / 1000); s < Math.floor(toMs / 1000); s++) {
      const counted = this.#seconds.get(s) ?? { requests: 0, throttled: 0 };
      seconds.push({ second: s, ...counted });
    }
    return seconds;
  }

  #poll(): void {
    this.#polling = this.#polling.then(async () => {
      const calls = await this.#admin.calls();
      const first = calls[0];
      if (!first) return;
      const oldest = Math.floor(Date.parse(first.time) / 1000);
      const current = Math.floor(Date.now() / 1000);
      const counts = new Map<number, { requests: number; throttled: number }>();
      for (const call of calls) {
        const second = Math.floor(Date.parse(call.time) / 1000);
        if (second <= oldest || second >= current) continue;
        const count = counts.get(second) ?? { requests: 0, throttled: 0 };
        count.requests += 1;
        if (call.httpStatus === 429) count.throttled += 1;
        counts.set(second, count);
      }
      for (const [second, count] of counts) this.#seconds.set(second, count);
    });
  }
}

/** The largest mean of `width` consecutive seconds' requests. */
export function busiestWindow(series: readonly Second[], width: number): number {
  let largest = 0;
  let sum = 0;
  for (const [i, second] of series.entries()) {
    sum += second.requests - (series[i - width]?.requests ?? 0);
    if (i >= width - 1) largest = Math.max(largest, sum / width);
  }
  return largest;
}
