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

/**
 * What the gate and the exchange need of an abort signal: an AbortSignal has it, and so has a
 * CallDeadline, which thus needs no AbortController (an EventTarget, a Map, a listener) per
 * attempt. Listeners are called once, in the order they were added.
 */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}

export type AbortListener = (() => void) | { handleEvent(): void };

export class CallDeadline implements AbortSource {
  readonly #caller: AbortSignal | undefined;
  readonly #timer: NodeJS.Timeout;
  #listeners: AbortListener[] = [];
  /** Made only when asked for (`signal`). */
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
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
      this.#abort(new DeadlineExceeded(deadlineMs));
    }, deadlineMs);
    // The deadline is its own listener (handleEvent): no bound function per attempt.
    if (caller?.aborted) this.handleEvent();
    else caller?.addEventListener('abort', this, { once: true });
  }

  /** Whether the deadline passed or the caller aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** DeadlineExceeded, or the caller's reason; undefined before either. */
  get reason(): unknown {
    return this.#reason;
  }

  /** An AbortSignal that aborts with the deadline, for what needs a real one. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Whether the deadline, not the caller, ended the attempt. */
  get expired(): boolean {
    return this.#expired;
  }

  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (!this.#aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    const index = this.#listeners.indexOf(listener);
    if (index >= 0) this.#listeners.splice(index, 1);
  }

  /** The attempt is over: no timer or listener is left behind. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener('abort', this);
    this.#listeners = [];
  }

  /** The caller aborted: the deadline's listener on the caller's signal (EventListener object). */
  handleEvent(): void {
    clearTimeout(this.#timer);
    this.#abort(this.#caller?.reason);
  }

  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) {
      try {
        if (typeof listener === 'function') listener();
        else listener.handleEvent();
      } catch (error) {
        // As an EventTarget does: the others are still told, the error is not swallowed.
        process.nextTick(() => {
          throw error;
        });
      }
    }
  }
}
