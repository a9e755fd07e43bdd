/**
 * The ledger as a handler sees it, in memory: steps recorded, events published with them, the
 * contractId learnt from results. A write can be made to fail as a crash would, to leave a step
 * in doubt (`started` without `done`) and check how the next run settles it.
 */
import { pino } from 'pino';
import { DEFAULT_COMMAND_CLASSES } from '../../../src/consumers/index.js';
import type {
  CommandContext,
  Outcome,
  PendingEvent,
  StepRecord,
} from '../../../src/handlers/index.js';
import { COMMANDS, type Command, type CommandType } from '../../../src/schemas/messages/index.js';

export class SimulatedCrash extends Error {}
export class PartitionLost extends Error {}

const silent = pino({ level: 'silent' });

export class MemoryLedger {
  readonly steps: Record<string, StepRecord> = {};
  /** Step events, in the order they were written (terminal events come with the outcome). */
  readonly published: PendingEvent[] = [];
  contractId: string | undefined;
  /** The command ended without a final verdict earlier and was sent again. */
  resent = false;
  /** False once the partition is taken to be lost: no request may leave any more. */
  owned = true;
  #crash: { step: string; state: StepRecord['state'] } | undefined;

  /** The next write of `step` in `state` fails, and nothing of it is kept. */
  crashAt(step: string, state: StepRecord['state']): this {
    this.#crash = { step, state };
    return this;
  }

  context<T extends CommandType>(type: T, command: Command<T>): CommandContext<T> {
    return {
      type,
      command,
      progress: { contractId: this.contractId, steps: { ...this.steps }, resent: this.resent },
      record: async (step, record, events = []) => this.#record(step, record, events),
      forget: async (step) => {
        delete this.steps[step];
      },
      assertOwned: () => {
        if (!this.owned) throw new PartitionLost(`the partition of ${command.bizId} was lost`);
      },
      signal: new AbortController().signal,
      priority: DEFAULT_COMMAND_CLASSES.of[type],
      log: silent,
    };
  }

  #record(step: string, record: StepRecord, events: readonly PendingEvent[]): void {
    if (this.#crash?.step === step && this.#crash.state === record.state) {
      this.#crash = undefined;
      throw new SimulatedCrash(`crashed while recording ${step} ${record.state}`);
    }
    this.steps[step] = record;
    this.published.push(...events);
    const contractId = record.result?.contractId;
    if (typeof contractId === 'string') this.contractId = contractId;
  }

  /** As the engine does once a command completes: its terminal event may name the contract. */
  settle(outcome: Outcome): Outcome {
    if (outcome.kind !== 'completed') return outcome;
    const contractId = (outcome.event.data as { contractId?: unknown }).contractId;
    if (typeof contractId === 'string') this.contractId = contractId;
    return outcome;
  }
}

/** A command as the engine hands it over: parsed by its topic's schema (defaults applied). */
export function command<T extends CommandType>(type: T, raw: unknown): Command<T> {
  return COMMANDS[type].schema.parse(raw) as Command<T>;
}
