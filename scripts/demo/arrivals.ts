/** What the demo reads back: the bridge's CloudEvents and its dead letters, decoded for printing. */
import type { InboundRecord } from '../../src/kafka/index.js';
import {
  type CloudEvent,
  DLQ_HEADERS,
  decodeEvent,
  headerText,
} from '../../src/producers/index.js';
import { type CommandType, isTerminal } from '../../src/schemas/messages/index.js';

export interface EventArrival {
  readonly kind: 'event';
  readonly event: CloudEvent;
  readonly data: Readonly<Record<string, unknown>>;
  /** Whether it ends its command (a document.added inside a create-contract does not). */
  readonly terminal: boolean;
}

export interface DeadLetterArrival {
  readonly kind: 'dead-letter';
  readonly bizId: string | undefined;
  readonly commandId: string | undefined;
  readonly errorCode: string | undefined;
  readonly sourceTopic: string | undefined;
  readonly failedAt: string | undefined;
}

export type Arrival = EventArrival | DeadLetterArrival;

/** Undefined for a record that is not one of the bridge's events. */
export function eventArrival(record: InboundRecord): EventArrival | undefined {
  const event = decodeEvent(record);
  if (!event) return undefined;
  const data = (event.data ?? {}) as Record<string, unknown>;
  const commandType = data.commandType as CommandType | undefined;
  const terminal = commandType !== undefined && isTerminal(event.type, commandType);
  return { kind: 'event', event, data, terminal };
}

export function deadLetterArrival(record: InboundRecord): DeadLetterArrival {
  const header = (name: string) => headerText(record.headers, name);
  return {
    kind: 'dead-letter',
    bizId: record.key?.toString(),
    commandId: commandIdOf(record.value),
    errorCode: header(DLQ_HEADERS.errorCode),
    sourceTopic: header(DLQ_HEADERS.sourceTopic),
    failedAt: header(DLQ_HEADERS.failedAt),
  };
}

/** The dead letter is the command as it came: its commandId, when it has one, says whose it is. */
function commandIdOf(value: Buffer | null): string | undefined {
  try {
    const id = (JSON.parse(value?.toString() ?? '') as { commandId?: unknown }).commandId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
