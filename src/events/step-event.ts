/** The events use cases publish, with the fields every event of a command shares. */
import type {
  CommandProgress,
  CommandType,
  EventData,
  EventType,
  PendingEvent,
} from '../schemas/messages/index.js';

type SharedField = 'commandId' | 'bizId' | 'commandType' | 'contractId';

/** What a command's events are about: a handler's CommandContext is one. */
export interface EventSubject {
  readonly type: CommandType;
  readonly command: { readonly commandId: string; readonly bizId: string };
  readonly progress: Pick<CommandProgress, 'contractId'>;
}

/** What every event of the command carries; contractId falls back to the one the ledger knows. */
function eventBase(subject: EventSubject, contractId?: string) {
  const { command, type, progress } = subject;
  return {
    commandId: command.commandId,
    bizId: command.bizId,
    commandType: type,
    contractId: contractId ?? progress.contractId,
  };
}

/** An event of `step`, its shared fields filled in from the command's context. */
export function stepEvent<T extends EventType>(
  subject: EventSubject,
  step: string,
  type: T,
  data: Omit<EventData<T>, SharedField> & { contractId?: string | undefined },
): PendingEvent<T> {
  // Not two spreads (docs/design.md, "Limits and costs": spreads).
  const full = Object.assign({}, data, eventBase(subject, data.contractId));
  // TypeScript cannot follow a spread into a generic type; the fields are exactly EventData<T>.
  return { type, step, data: full as EventData<T> };
}
