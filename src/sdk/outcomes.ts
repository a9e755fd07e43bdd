/**
 * Terminal events by command, for waiting on a command's outcome: the most recent ones are
 * kept, so an outcome that arrived before anyone asked is still found, and the waits are
 * bounded too. A commandId is unique within its bizId only, so a command is (bizId, commandId);
 * and since a command sent again after an ending that is not final ends again, a wait for one
 * send matches the ending of that send's record. A commandId sent again with other content is
 * another command, refused: endings carry their command's fingerprint to tell them apart.
 */
import { OutcomeWaitTimedOut, SubscriberUnavailable } from '../errors.js';
import type { BridgeEvent } from './events.js';

export interface OutcomeLimits {
  /** Commands whose terminal events are kept for waits that come after them; oldest go first. */
  readonly recent: number;
  /** Waits at once; one more is refused (SubscriberUnavailable, too-many-waits). */
  readonly waits: number;
}

export const OUTCOME_LIMITS: OutcomeLimits = { recent: 10_000, waits: 10_000 };

// Endings kept per command: one per send of it that did not end for good, and the final one.
const ENDINGS_PER_COMMAND = 8;

/**
 * Which command's outcome to wait for: its bizId and commandId, and, to wait for the ending of
 * one send of it, the record's position and the command's fingerprint (`CommandProducer.send`
 * returns all of these).
 */
export interface OutcomeOf {
  readonly bizId: string;
  readonly commandId: string;
  readonly topic?: string | undefined;
  readonly partition?: number | undefined;
  readonly offset?: string | undefined;
  readonly fingerprint?: string | undefined;
}

type EndingData = { source?: OutcomeOf; fingerprint?: string };

export interface WaitOptions {
  /** Default 60 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

interface Waiter {
  readonly of: OutcomeOf;
  resolve(event: BridgeEvent): void;
  reject(error: unknown): void;
}

/**
 * Whether the ending answers a wait: the ending of that very record (its command.rejected, when
 * the commandId was used by other content), or a final ending of the same command from another
 * record (the commandId is spent: a later send of the same content is a duplicate, which
 * publishes nothing). Without a fingerprint on either side (a bridge before this one, a wait
 * that names none) a final ending is taken for the same command's. An event of a bridge before
 * 0.3.0 names no record, and answers any wait of its command.
 */
export function answers(event: BridgeEvent, of: OutcomeOf): boolean {
  const { source, fingerprint } = event.data as EndingData;
  if (of.offset === undefined || source === undefined) return true;
  const sameRecord =
    source.topic === of.topic && source.partition === of.partition && source.offset === of.offset;
  if (sameRecord) return true;
  const sameContent =
    fingerprint === undefined || of.fingerprint === undefined || fingerprint === of.fingerprint;
  return isFinal(event) && sameContent;
}

/** A result, or a failure the platform decided: the commandId is spent. */
function isFinal(event: BridgeEvent): boolean {
  const final = (event.data as { final?: boolean }).final;
  return final === undefined ? !event.type.startsWith('signingbridge.command.') : final;
}

function keyOf({ bizId, commandId }: { bizId: string; commandId: string }): string {
  return `${bizId}\n${commandId}`;
}

export class OutcomeBook {
  readonly #limits: OutcomeLimits;
  readonly #recent = new Map<string, BridgeEvent[]>();
  readonly #waiters = new Map<string, Set<Waiter>>();
  #waits = 0;
  #closed: SubscriberUnavailable | undefined;

  constructor(limits: OutcomeLimits = OUTCOME_LIMITS) {
    this.#limits = limits;
  }

  /** Keeps a command's terminal event and hands it to whoever waits for it. */
  add(event: BridgeEvent): void {
    const { commandId, subject } = event;
    if (!event.terminal || commandId === undefined || subject === undefined) return;
    const key = keyOf({ bizId: subject, commandId });
    const endings = this.#recent.get(key) ?? [];
    if (endings.some((known) => known.id === event.id)) return;
    this.#recent.delete(key);
    this.#recent.set(key, [...endings, event].slice(-ENDINGS_PER_COMMAND));
    if (this.#recent.size > this.#limits.recent) {
      const oldest = this.#recent.keys().next().value as string;
      this.#recent.delete(oldest);
    }
    for (const waiter of this.#waiters.get(key) ?? []) {
      if (answers(event, waiter.of)) waiter.resolve(event);
    }
  }

  /** The command's terminal event that answers `of` (see answers): one kept, or the next. */
  wait(of: OutcomeOf, options: WaitOptions = {}): Promise<BridgeEvent> {
    const key = keyOf(of);
    const known = this.#recent.get(key)?.find((event) => answers(event, of));
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
    return this.#waitFor(key, of, options);
  }

  #waitFor(key: string, of: OutcomeOf, options: WaitOptions): Promise<BridgeEvent> {
    const { timeoutMs = 60_000, signal } = options;
    return new Promise<BridgeEvent>((resolve, reject) => {
      const waiters = this.#waiters.get(key) ?? new Set<Waiter>();
      this.#waiters.set(key, waiters);
      const end = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        waiters.delete(waiter);
        if (waiters.size === 0) this.#waiters.delete(key);
        this.#waits--;
      };
      const waiter: Waiter = {
        of,
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
      const { bizId, commandId } = of;
      const timer = setTimeout(() => {
        const message = `no terminal event of command ${commandId} of bizId ${bizId} within ${timeoutMs} ms`;
        waiter.reject(
          new OutcomeWaitTimedOut(message, { details: { bizId, commandId, timeoutMs } }),
        );
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
