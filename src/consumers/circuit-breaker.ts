export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * `cause` names what the failures that opened the circuit were (the handlers' outage causes:
 * auth, unreachable, ...), for the log line and the metric; the breaker does not read it.
 */
export type StateChangeListener = (
  state: CircuitState,
  previous: CircuitState,
  cause: string | undefined,
) => void;

/** A call let through by tryPass(); end() it once the call's verdict, if any, is recorded. */
export interface Pass {
  end(): void;
}

// A pass while closed: its end says nothing the breaker needs.
const CLOSED_PASS: Pass = { end: () => {} };

export interface CircuitBreakerOptions {
  /** Consecutive transient failures that open the circuit. */
  failureThreshold: number;
  /** How long the first opening lasts; each failed probe doubles it. */
  openDurationMs: number;
  maxOpenDurationMs: number;
  /** Calls let through while half-open. */
  halfOpenProbes: number;
  /** A monotonic clock (performance.now by default): a step of the wall clock changes no wait. */
  now?: () => number;
}

/**
 * Pauses consumption during a sustained upstream outage.
 *
 * It opens on N consecutive failures rather than a failure ratio over a rolling window: what
 * callers record is already limited to transient upstream failures left over after the HTTP
 * client's own retries, so an unbroken run of them is a clear outage signal, and a counter has no
 * window length or minimum sample size to tune.
 *
 * Business errors (the platform answered and refused) are not failures: the platform answered,
 * so callers record them as successes. Results recorded while open are ignored: they belong to
 * calls made before opening.
 *
 * Open turns half-open when canPass() or refresh() is next called after the open duration;
 * remainingOpenMs() tells the caller when to look again. Callers that would rather be told wait
 * with whenMayPass(): the breaker then keeps one timer, only while someone waits, so that a
 * paused bridge costs one wake-up per open period however many commands it holds.
 */
export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  readonly #now: () => number;
  readonly #listeners = new Set<StateChangeListener>();
  #state: CircuitState = 'closed';
  #failures = 0;
  #openForMs: number;
  // When the current open or half-open period began.
  #sinceMs = 0;
  #probesLeft = 0;
  // Probes let through by tryPass() in the current half-open period and not ended yet.
  #probing = 0;
  // Counts half-open periods: a probe that ends in a later one than its own is no longer out.
  #period = 0;
  #cause: string | undefined;
  // First come first served; a Set keeps the order and forgets a waiter at once.
  readonly #waiters = new Set<() => void>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: CircuitBreakerOptions) {
    const { failureThreshold, openDurationMs, maxOpenDurationMs, halfOpenProbes } = options;
    const valid =
      failureThreshold >= 1 &&
      openDurationMs >= 0 &&
      maxOpenDurationMs >= openDurationMs &&
      halfOpenProbes >= 1;
    if (!valid) throw new RangeError('invalid circuit breaker options');
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#openForMs = openDurationMs;
  }

  get state(): CircuitState {
    return this.#state;
  }

  /** Turns an open circuit half-open once its open period is over; returns the state then. */
  refresh(): CircuitState {
    this.#expireOpen();
    return this.#state;
  }

  /** Whether a call may go now. While half-open, a true answer uses up one probe. */
  canPass(): boolean {
    this.#expireOpen();
    if (this.#state !== 'half-open') return this.#state === 'closed';
    if (this.#probesLeft === 0) this.#probeAgain();
    if (this.#probesLeft === 0) return false;
    this.#probesLeft--;
    return true;
  }

  /**
   * canPass() for a caller that ends the pass when its call is over: while that probe is out, no
   * other is let through, however long it takes.
   */
  tryPass(): Pass | undefined {
    if (!this.canPass()) return undefined;
    if (this.#state === 'closed') return CLOSED_PASS;
    this.#probing++;
    const period = this.#period;
    return { end: () => this.#probeEnded(period) };
  }

  /**
   * Calls `resume` once a call may pass, never synchronously: every waiter when the circuit
   * closes, the longest waiting (one per probe) when it half-opens. Returns a function that stops
   * waiting.
   */
  whenMayPass(resume: () => void): () => void {
    let waiting = true;
    // Once released, a waiter is called a microtask later: stopping in between still counts.
    const waiter = () => {
      if (waiting) resume();
      waiting = false;
    };
    this.#waiters.add(waiter);
    this.#expireOpen();
    if (this.#state === 'closed') this.#release(this.#waiters.size);
    else if (this.#state === 'half-open' && this.#probesLeft > 0) this.#release(this.#probesLeft);
    this.#armTimer();
    return () => {
      waiting = false;
      this.#waiters.delete(waiter);
    };
  }

  /** Milliseconds until an open circuit turns half-open; 0 when it is not open. */
  remainingOpenMs(): number {
    if (this.refresh() !== 'open') return 0;
    return this.#sinceMs + this.#openForMs - this.#now();
  }

  recordSuccess(): void {
    if (this.#state === 'open') return;
    this.#failures = 0;
    if (this.#state === 'half-open') {
      this.#openForMs = this.#options.openDurationMs;
      this.#transition('closed');
      this.#release(this.#waiters.size);
    }
  }

  /** `cause`: what failed, kept for the listeners of the opening it leads to. */
  recordFailure(cause?: string): void {
    if (this.#state !== 'open') this.#cause = cause;
    if (this.#state === 'half-open') {
      this.#open(Math.min(this.#openForMs * 2, this.#options.maxOpenDurationMs));
    } else if (this.#state === 'closed' && ++this.#failures >= this.#options.failureThreshold) {
      this.#open(this.#options.openDurationMs);
    }
  }

  /** Returns a function that removes the listener. */
  onStateChange(listener: StateChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #open(durationMs: number): void {
    this.#openForMs = durationMs;
    this.#sinceMs = this.#now();
    this.#failures = 0;
    this.#transition('open');
    this.#armTimer();
  }

  #periodOver(): boolean {
    return this.#now() - this.#sinceMs >= this.#openForMs;
  }

  #expireOpen(): void {
    if (this.#state === 'open' && this.#periodOver()) {
      this.#startHalfOpen();
      this.#transition('half-open');
      this.#release(this.#probesLeft);
    }
  }

  /**
   * Probes whose callers never record a verdict (a request refused before it was sent, say, or a
   * waiter woken to probe that never came) must not leave the circuit half-open forever: after
   * another open period with no probe out, probe again.
   */
  #probeAgain(): void {
    if (this.#state === 'half-open' && this.#probing === 0 && this.#periodOver()) {
      this.#startHalfOpen();
      this.#release(this.#probesLeft);
    }
  }

  #startHalfOpen(): void {
    this.#sinceMs = this.#now();
    this.#probesLeft = this.#options.halfOpenProbes;
    this.#probing = 0;
    this.#period++;
  }

  /** A probe's verdict (if any) is recorded: without one, probing again waits for the timer. */
  #probeEnded(period: number): void {
    if (this.#state !== 'half-open' || period !== this.#period) return;
    this.#probing--;
    this.#armTimer();
  }

  /** While someone waits and no probe is out, wakes when the open period is over. */
  #armTimer(): void {
    const idle = this.#state === 'open' || (this.#state === 'half-open' && this.#probing === 0);
    if (this.#timer !== undefined || this.#waiters.size === 0 || !idle) return;
    const dueInMs = Math.max(0, this.#sinceMs + this.#openForMs - this.#now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#state === 'open') this.#expireOpen();
      else this.#probeAgain();
      this.#armTimer();
    }, dueInMs);
    this.#timer.unref();
  }

  /** Wakes the `count` longest waiting, in order, once the current call stack is done. */
  #release(count: number): void {
    const released: Array<() => void> = [];
    for (const waiter of this.#waiters) {
      if (released.length >= count) break;
      released.push(waiter);
    }
    for (const waiter of released) this.#waiters.delete(waiter);
    if (released.length === 0) return;
    queueMicrotask(() => {
      for (const waiter of released) waiter();
    });
  }

  #transition(next: CircuitState): void {
    const previous = this.#state;
    this.#state = next;
    const cause = next === 'closed' ? undefined : this.#cause;
    for (const listener of this.#listeners) listener(next, previous, cause);
  }
}
