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
 * There are no timers: open turns half-open when canPass() or refresh() is next called after
 * the open duration; remainingOpenMs() tells the caller when to look again.
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
  #cause: string | undefined;

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
    // Probes whose callers never record a verdict (a request refused before it was sent, say)
    // must not leave the circuit half-open forever: after another open period without one, probe
    // again.
    if (this.#probesLeft === 0 && this.#now() - this.#sinceMs >= this.#openForMs) {
      this.#startHalfOpen();
    }
    if (this.#probesLeft === 0) return false;
    this.#probesLeft--;
    return true;
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
  }

  #expireOpen(): void {
    if (this.#state === 'open' && this.#now() - this.#sinceMs >= this.#openForMs) {
      this.#startHalfOpen();
      this.#transition('half-open');
    }
  }

  #startHalfOpen(): void {
    this.#sinceMs = this.#now();
    this.#probesLeft = this.#options.halfOpenProbes;
  }

  #transition(next: CircuitState): void {
    const previous = this.#state;
    this.#state = next;
    const cause = next === 'closed' ? undefined : this.#cause;
    for (const listener of this.#listeners) listener(next, previous, cause);
  }
}
