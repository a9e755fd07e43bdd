/**
 * The seam between the consumer and the use cases. A handler runs one command against the
 * platform and says how it ended; the consumer decides, from that outcome alone, whether to
 * publish, wait and run the handler again, or give up. Handlers never see Kafka.
 */
import type { Logger } from 'pino';
import type { OutageCause } from '../api-client/delivery.js';
import type { SigningBridgeError } from '../errors.js';
import type { CommandType, PendingEvent } from '../schemas/messages/events.js';
import type { CommandProgress, StepRecord } from '../schemas/messages/index.js';
import type { Command } from '../schemas/messages/topics.js';

/** One event to publish (src/schemas/messages/events.ts): handlers return them. */
export type { PendingEvent } from '../schemas/messages/events.js';

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
  /**
   * Forgets a step recorded `started` whose call did not take effect (refused, or never reached
   * the platform), so that the next run does not take it for one in doubt; resolves once handed
   * over, as `done` does.
   */
  forget(step: string): Promise<void>;
  /**
   * @throws PartitionReleased once the command's partition may no longer be this instance's
   * (released, or its lease lost): checked right before a request leaves for the platform.
   */
  assertOwned(): void;
  readonly signal: AbortSignal;
  /**
   * The command's priority class (COMMAND_CLASSES): handlers pass it with the signal to every
   * platform call, so rate tokens are shared between classes by weight.
   */
  readonly priority: string;
  readonly log: Logger;
}

/**
 * Why the platform, or the way to it, is down (src/api-client/delivery.ts): an outcome that
 * names one counts against the circuit breaker, whatever else it says.
 */
export type { OutageCause } from '../api-client/delivery.js';

/** How one run of a handler ended. */
export type Outcome =
  /** The command is done; `event` is its terminal result event. */
  | { readonly kind: 'completed'; readonly event: PendingEvent }
  /**
   * It ended without doing what it asked. `final`: the platform's verdict on this command (or a
   * request the spec forbids), so the commandId is spent; otherwise the bridge could not finish
   * it, and the same commandId sent again runs again.
   */
  | {
      readonly kind: 'failed';
      readonly step: string;
      readonly error: SigningBridgeError;
      readonly final: boolean;
      readonly outage?: OutageCause;
    }
  /**
   * Worth another run later: `transient` (upstream trouble, counts against the retry budget),
   * `not-found` (the contract does not exist yet: a command racing its create on another topic;
   * waits up to the precondition timeout) or `outage` (the platform, or the way to it, is down
   * and the call never reached it: waits for as long as that lasts, counting against nothing).
   */
  | {
      readonly kind: 'retry';
      readonly reason: 'transient' | 'not-found' | 'outage';
      readonly step: string;
      readonly error: SigningBridgeError;
      readonly outage?: OutageCause;
    };

export type Handler<T extends CommandType = CommandType> = (
  context: CommandContext<T>,
) => Promise<Outcome>;

export type Handlers = { readonly [T in CommandType]: Handler<T> };
