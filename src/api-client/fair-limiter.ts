/**
 * The client's requests-per-second limit: a token bucket whose tokens go to the callers waiting
 * for one in weighted fair order of their priority (src/fairness), first come first served within
 * a priority. A reservation queue served in call order would make a call wait behind every call
 * made before it: minutes behind a batch job's thousands. Here a call of another priority waits
 * only for its priority's turn.
 */
import { WeightedTurns } from '../fairness/weighted-turns.js';

/** The priority of a call that names none, or one the weights do not list. */
export const DEFAULT_PRIORITY = '';

/** Float rounding must not hold back a token that is due. */
const EPSILON = 1e-9;

export interface FairLimiterOptions {
  /** Tokens a second: Infinity lets every call through at once, 0 none until raised. */
  readonly ratePerSecond: number;
  /** Tokens usable at once after an idle moment, at least 1. */
  readonly burst?: number;
  /** Each priority's weight; priorities not listed are served as DEFAULT_PRIORITY. */
  readonly weights?: ReadonlyMap<string, number>;
  /** Milliseconds, monotonic. */
  readonly now?: () => number;
}

interface Waiter {
  readonly since: number;
  readonly resolve: (waitedMs: number) => void;
  readonly release: () => void;
}

export class FairLimiter {
  readonly #burst: number;
  readonly #now: () => number;
  readonly #turns: WeightedTurns;
  readonly #priorities: ReadonlySet<string>;
  readonly #queues = new Map<string, Waiter[]>();
  #perMs = 0;
  #tokens: number;
  #updatedAt: number;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #waiting = 0;

  constructor({ ratePerSecond, burst = 1, weights = new Map(), now }: FairLimiterOptions) {
    if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`invalid burst: ${burst}`);
    this.#burst = burst;
    this.#now = now ?? (() => performance.now());
    this.#turns = new WeightedTurns(weights);
    this.#priorities = new Set(weights.keys());
    this.#tokens = burst;
    this.#updatedAt = this.#now();
    this.setRate(ratePerSecond);
  }

  /** Callers waiting for a token. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Resolves with the milliseconds waited once the caller may send. If the signal aborts while
   * it waits, it rejects with the signal's reason and takes no token.
   */
  take(priority: string = DEFAULT_PRIORITY, signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const name = this.#priorities.has(priority) ? priority : DEFAULT_PRIORITY;
    // What came in while nobody waited is counted before this caller waits.
    const now = this.#now();
    this.#refill(now);
    // Nobody waits and a token is there: it is this caller's at once, as #dispatch would grant
    // it (its priority the only one with work), without a waiter or a listener on its signal.
    if (this.#waiting === 0 && now >= this.#pausedUntil && this.#tokens >= 1 - EPSILON) {
      this.#grant(name);
      return Promise.resolve(0);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#remove(name, waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        since: this.#now(),
        resolve,
        release: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.#queues.get(name);
      if (queue) queue.push(waiter);
      else this.#queues.set(name, [waiter]);
      this.#waiting++;
      this.#dispatch();
    });
  }

  /** From now on, `perSecond` tokens a second (Infinity: unlimited; 0: none until raised). */
  setRate(perSecond: number): void {
    if (!(perSecond >= 0)) throw new RangeError(`invalid rate: ${perSecond}`);
    this.#refill(this.#now());
    this.#perMs = perSecond / 1000;
    this.#dispatch();
  }

  /** No token is granted before `at` (a time of `now()`): the platform asked us to wait. */
  pauseUntil(at: number): void {
    if (at <= this.#pausedUntil) return;
    this.#refill(this.#now());
    this.#pausedUntil = at;
    this.#dispatch();
  }

  /** Grants every token due, in turn, and sets a timer for the next one. */
  #dispatch(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting === 0) return;
    const now = this.#now();
    this.#refill(now);
    while (this.#waiting > 0) {
      if (now < this.#pausedUntil) {
        this.#wakeIn(this.#pausedUntil - now);
        return;
      }
      if (this.#tokens < 1 - EPSILON) {
        if (this.#perMs > 0) this.#wakeIn((1 - this.#tokens) / this.#perMs);
        return;
      }
      const name = this.#turns.next(this.#nonEmpty()) as string;
      this.#grant(name);
      const waiter = this.#queues.get(name)?.shift() as Waiter;
      this.#waiting--;
      waiter.release();
      waiter.resolve(now - waiter.since);
    }
  }

  /** A token goes to a caller of priority `name`. */
  #grant(name: string): void {
    this.#turns.took(name);
    if (this.#perMs !== Number.POSITIVE_INFINITY) this.#tokens -= 1;
  }

  /**
   * Tokens come in at the rate, but not while paused. With nobody waiting the bucket holds its
   * burst at most; while calls wait, what came in before a late timer fired is theirs: timers
   * fire a little late, and capping that away would lower the rate by every delay.
   */
  #refill(now: number): void {
    const elapsed = Math.max(0, now - Math.max(this.#updatedAt, this.#pausedUntil));
    this.#updatedAt = now;
    if (this.#perMs === Number.POSITIVE_INFINITY) {
      this.#tokens = this.#burst;
      return;
    }
    const tokens = this.#tokens + elapsed * this.#perMs;
    this.#tokens = this.#waiting > 0 ? tokens : Math.min(this.#burst, tokens);
  }

  /** Timers have millisecond resolution: rounding up keeps a token from being looked for early. */
  #wakeIn(ms: number): void {
    this.#timer = setTimeout(() => this.#dispatch(), Math.max(1, Math.ceil(ms)));
  }

  *#nonEmpty(): Iterable<string> {
    for (const [name, queue] of this.#queues) if (queue.length > 0) yield name;
  }

  #remove(name: string, waiter: Waiter): void {
    const queue = this.#queues.get(name) ?? [];
    const index = queue.indexOf(waiter);
    if (index < 0) return;
    this.#refill(this.#now());
    queue.splice(index, 1);
    this.#waiting--;
    waiter.release();
    this.#dispatch();
  }
}
