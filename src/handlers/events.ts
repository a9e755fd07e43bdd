/** The events use cases publish, with the fields every event of a command shares. */
import type { EventData, EventType } from '../schemas/messages/events.js';
import type { CommandContext, PendingEvent } from './types.js';

type SharedField = 'commandId' | 'bizId' | 'commandType' | 'contractId';

/** What every event of the command carries; contractId falls back to the one the ledger knows. */
function eventBase(context: CommandContext, contractId?: string) {
  const { command, type, progress } = context;
  return {
    commandId: command.commandId,
    bizId: command.bizId,
    commandType: type,
    contractId: contractId ?? progress.contractId,
  };
}

/** An event of `step`, its shared fields filled in from the context. */
export function stepEvent<T extends EventType>(
  context: CommandContext,
  step: string,
  type: T,
  data: Omit<EventData<T>, SharedField> & { contractId?: string | undefined },
): PendingEvent<T> {
  const full = { ...data, ...eventBase(context, data.contractId) };
  // TypeScript cannot follow a spread into a generic type; the fields are exactly EventData<T>.
  return { type, step, data: full as EventData<T> };
}
