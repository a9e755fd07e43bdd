/**
 * The seam between the consumer and the use cases. A handler runs one command against the
 * platform and says how it ended; the consumer decides, from that outcome alone, whether to
 * publish, wait and run the handler again, or give up. Handlers never see Kafka.
 */
import type { Logger } from 'pino';
import type { SigningBridgeError } from '../errors.js';
import type { CommandType, EventData, EventType } from '../schemas/messages/events.js';
import type { CommandProgress, StepRecord } from '../schemas/messages/index.js';
import type { Command } from '../schemas/messages/topics.js';

/** One event to publish: its type, the step it belongs to (for its id), and its data. */
export interface PendingEvent<T extends EventType = EventType> {
  readonly type: T;
  readonly step: string;
  readonly data: EventData<T>;
}

/**
 * A step's state in the ledger (`started` without `done` means an earlier attempt may have
 * reached the platform and its outcome is unknown: the handler reconciles), and a command's
 * progress: their shapes are the ledger records' (src/schemas/messages/ledger.ts).
 */
export type { CommandProgress, StepRecord } from '../schemas/messages/index.js';

export interface CommandContext<T extends CommandType = CommandType> {
  readonly type: T;
  readonly command: Command<T>;
  readonly progress: CommandProgress;
  /**
   * Records a step's state in the ledger: `started` before the call it announces, resolving once
   * Kafka acknowledged it; `done` after it, with its result and the step's events in the same
   * write, resolving once handed over (the next write, which the handler awaits, goes after it).
   */
  record(step: string, record: StepRecord, events?: readonly PendingEvent[]): Promise<void>;
  readonly signal: AbortSignal;
  /**
   * The command's priority class (COMMAND_CLASSES): handlers pass it with the signal to every
   * platform call, so rate tokens are shared between classes by weight.
   */
  readonly priority: string;
  readonly log: Logger;
}

/** How one run of a handler ended. */
export type Outcome =
  /** The command is done; `event` is its terminal result event. */
  | { readonly kind: 'completed'; readonly event: PendingEvent }
  /** The platform refused for good (a business code, or a request it calls invalid). */
  | { readonly kind: 'failed'; readonly step: string; readonly error: SigningBridgeError }
  /**
   * Worth another run later: `transient` (upstream trouble, counts against the retry budget and
   * the circuit breaker) or `not-found` (the contract does not exist yet: a command racing its
   * create on another topic; waits up to the precondition timeout).
   */
  | {
      readonly kind: 'retry';
      readonly reason: 'transient' | 'not-found';
      readonly step: string;
      readonly error: SigningBridgeError;
    };

export type Handler<T extends CommandType = CommandType> = (
  context: CommandContext<T>,
) => Promise<Outcome>;

export type Handlers = { readonly [T in CommandType]: Handler<T> };
