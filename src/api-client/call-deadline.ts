/**
 * One deadline per HTTP attempt, from the moment it asks for a connection (its rate token in
 * hand) to the last byte of the answer: the wait for a slot, the connection, the headers and
 * every chunk of the body all come out of the same budget. undici's own timeouts cannot do this:
 * its `bodyTimeout` starts again with every chunk, so an answer dripping a byte at a time holds
 * a connection for as long as the sender likes.
 *
 * The timer is a plain `setTimeout`, which Node runs on a monotonic clock: moving the wall clock
 * neither shortens nor lengthens it.
 */

/** The reason an attempt's signal aborts with when its deadline passes. */
export class DeadlineExceeded extends Error {
  /** The `reason` the transport's errors carry for it. */
  static readonly REASON = 'CALL_DEADLINE_EXCEEDED';

  constructor(readonly deadlineMs: number) {
    super(`the call deadline of ${deadlineMs} ms passed`);
  }

  override get name(): string {
    return 'DeadlineExceeded';
  }
}

export class CallDeadline {
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal | undefined;
  readonly #timer: NodeJS.Timeout;
  #expired = false;

  /**
   * Starts now. `caller`, the caller's own signal, aborts the attempt too, with its own reason;
   * the deadline does not then count as expired.
   */
  constructor(
    readonly deadlineMs: number,
    caller?: AbortSignal,
  ) {
    this.#caller = caller;
    this.#timer = setTimeout(() => {
      this.#expired = true;
      this.#controller.abort(new DeadlineExceeded(deadlineMs));
    }, deadlineMs);
    // The deadline is its own listener (handleEvent): no bound function per attempt.
    if (caller?.aborted) this.handleEvent();
    else caller?.addEventListener('abort', this, { once: true });
  }

  /** Aborts when the deadline passes (reason: DeadlineExceeded) or the caller aborts. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the deadline, not the caller, ended the attempt. */
  get expired(): boolean {
    return this.#expired;
  }

  /** The attempt is over: no timer or listener is left behind. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener('abort', this);
  }

  /** The caller aborted: the deadline's listener on the caller's signal (EventListener object). */
  handleEvent(): void {
    clearTimeout(this.#timer);
    this.#controller.abort(this.#caller?.reason);
  }
}
