/**
 * Terminal events by commandId, for waiting on a command's outcome: the most recent ones are
 * kept, so an outcome that arrived before anyone asked is still found, and the waits are
 * bounded too.
 */
import { OutcomeWaitTimedOut, SubscriberUnavailable } from '../errors.js';
import type { BridgeEvent } from './events.js';

export interface OutcomeLimits {
  /** Terminal events kept for waits that come after them; the oldest go first. */
  readonly recent: number;
  /** Waits at once; one more is refused (SubscriberUnavailable, too-many-waits). */
  readonly waits: number;
}

export const OUTCOME_LIMITS: OutcomeLimits = { recent: 10_000, waits: 10_000 };

export interface WaitOptions {
  /** Default 60 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

interface Waiter {
  resolve(event: BridgeEvent): void;
  reject(error: unknown): void;
}

export class OutcomeBook {
  readonly #limits: OutcomeLimits;
  readonly #recent = new Map<string, BridgeEvent>();
  readonly #waiters = new Map<string, Set<Waiter>>();
  #waits = 0;
  #closed: SubscriberUnavailable | undefined;

  constructor(limits: OutcomeLimits = OUTCOME_LIMITS) {
    this.#limits = limits;
  }

  /** Keeps a command's first terminal event and hands it to whoever waits for it. */
  add(event: BridgeEvent): void {
    const { commandId } = event;
    if (!event.terminal || commandId === undefined || this.#recent.has(commandId)) return;
    this.#recent.set(commandId, event);
    if (this.#recent.size > this.#limits.recent) {
      const oldest = this.#recent.keys().next().value as string;
      this.#recent.delete(oldest);
    }
    for (const waiter of this.#waiters.get(commandId) ?? []) waiter.resolve(event);
  }

  /** The first terminal event of the command: one already kept, or the next to arrive. */
  wait(commandId: string, options: WaitOptions = {}): Promise<BridgeEvent> {
    const known = this.#recent.get(commandId);
    if (known) return Promise.resolve(known);
    if (this.#closed) return Promise.reject(this.#closed);
    if (this.#waits >= this.#limits.waits) {
      return Promise.reject(
        new SubscriberUnavailable(
          `already ${this.#waits} waits for outcomes at once; wait for fewer commands at a time`,
          { details: { reason: 'too-many-waits' } },
        ),
      );
    }
    const { timeoutMs = 60_000, signal } = options;
    return new Promise<BridgeEvent>((resolve, reject) => {
      const waiters = this.#waiters.get(commandId) ?? new Set<Waiter>();
      this.#waiters.set(commandId, waiters);
      const end = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        waiters.delete(waiter);
        if (waiters.size === 0) this.#waiters.delete(commandId);
        this.#waits--;
      };
      const waiter: Waiter = {
        resolve: (event) => {
          end();
          resolve(event);
        },
        reject: (error) => {
          end();
          reject(error);
        },
      };
      const onAbort = () => waiter.reject(signal?.reason);
      const timer = setTimeout(() => {
        const message = `no terminal event of command ${commandId} within ${timeoutMs} ms`;
        waiter.reject(new OutcomeWaitTimedOut(message, { details: { commandId, timeoutMs } }));
      }, timeoutMs);
      waiters.add(waiter);
      this.#waits++;
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }

  /** Every wait, now and later, rejects with `error` (outcomes already kept are still found). */
  close(error: SubscriberUnavailable): void {
    this.#closed = error;
    for (const waiters of [...this.#waiters.values()]) {
      for (const waiter of [...waiters]) waiter.reject(error);
    }
  }
}
