/**
 * A contract's story, as the console shows it: from one bizId's records (gathered in order by
 * the CLI's HistoryBook), each command with its record(s), the steps its events recorded, the
 * platform call each stands for (operation, code, time), its ending, its dead letters and their
 * replays; and what the ledger remembers of the bizId. Pure: the search reads Kafka, this only
 * arranges what it found.
 */
import type { CommandType, EventType, LedgerEntry } from '../../schemas/messages/index.js';
import { OPERATIONS, type OperationName } from '../../schemas/platform/index.js';
import type { BridgeEvent } from '../../sdk/index.js';
import { eventDetail } from '../ops/event-detail.js';
import type { HistoryEntry } from '../ops/history-book.js';

/** The platform call an event stands for: the operation, and the platform's code or ours. */
export interface PlatformCall {
  readonly operation: string;
  /** `0` for success; the platform's code when it answered one; else our SB_ERR_ code. */
  readonly code: string;
}

export interface StoryEvent {
  readonly kind: 'event';
  readonly at: string;
  readonly type: EventType;
  readonly ceId: string;
  readonly step: string | undefined;
  readonly terminal: boolean;
  readonly detail: string;
  readonly call: PlatformCall | undefined;
  readonly failure: boolean;
  readonly partition: number;
  readonly offset: string;
}

export interface StoryRecord {
  readonly kind: 'command' | 'dead-letter';
  readonly at: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  /** A dead letter's error code and message. */
  readonly errorCode?: string | undefined;
  readonly errorMessage?: string | undefined;
  /** A dead letter sent back: when, and where its copy went (if the marker says). */
  readonly replayedAt?: string | undefined;
}

export interface StoryCommand {
  readonly commandId: string;
  readonly type: CommandType | undefined;
  /** Its records, events, dead letters, in the order written. */
  readonly items: ReadonlyArray<StoryEvent | StoryRecord>;
  /** Its endings (a resend after an ending that is not final ends again). */
  readonly endings: readonly StoryEvent[];
}

export interface Story {
  readonly bizId: string;
  readonly commands: readonly StoryCommand[];
  /** Records of the bizId that are no event of a type this console knows. */
  readonly unreadable: ReadonlyArray<{ at: string; offset: string; problem: string }>;
  readonly ledger: LedgerView | undefined;
}

export interface LedgerView {
  readonly contractId: string | undefined;
  /** CommandIds the ledger remembers as ended for good (the newest 100). */
  readonly done: readonly string[];
  readonly open: ReadonlyArray<{ commandId: string; steps: string[]; ended: boolean }>;
}

/**
 * Which platform call each event of success records. A create-contract's ending records the
 * initiation when it initiated; its draft and documents have events of their own.
 */
const CALLS: Partial<Record<EventType, (data: Record<string, unknown>) => string | undefined>> = {
  'signingbridge.draft.created': () => 'createDraft',
  'signingbridge.document.added': () => 'addDocumentByFile or addDocumentByTemplate',
  'signingbridge.contract.created': (data) => (data.initiated ? 'initiateContract' : undefined),
  'signingbridge.contract.initiated': () => 'initiateContract',
  'signingbridge.approval.recorded': () => 'approveContract',
  'signingbridge.reminder.sent': () => 'remindSignatories',
  'signingbridge.signatory.added': () => 'addSignatory',
};

const FAILURE = /\.command\./;
const RECORD_ENDING = /^(ended|rejected)@\S+\/\d+$/;

export function callOf(event: BridgeEvent): PlatformCall | undefined {
  const data = event.data as Record<string, unknown>;
  const error = data.error as { code: string; message: string; platformCode?: string } | undefined;
  if (error) {
    if (event.type === 'signingbridge.command.rejected') return undefined;
    // The bridge's messages of a failed call begin with the operation's name.
    const first = /^([A-Za-z]+)\b/.exec(error.message)?.[1] ?? '';
    const operation = Object.hasOwn(OPERATIONS, first) ? (first as OperationName) : '?';
    return { operation, code: error.platformCode ?? error.code };
  }
  const operation = CALLS[event.type]?.(data);
  return operation === undefined ? undefined : { operation, code: '0' };
}

/**
 * `<bizId>/<commandId>/<step>` (ids with `%` and `/` escaped), and `@<topic>/<partition>/<offset>`
 * on an ending: the step is the third part, up to an `@`.
 */
export function stepOf(ceId: string): string | undefined {
  const parts = ceId.split('/');
  return parts.length >= 3 ? (parts[2] as string).split('@')[0] : undefined;
}

export function assembleStory(
  bizId: string,
  entries: readonly HistoryEntry[],
  ledger?: LedgerEntry,
): Story {
  const commands = new Map<
    string,
    { type?: CommandType; items: Array<StoryEvent | StoryRecord>; endings: StoryEvent[] }
  >();
  const letters = new Map<string, StoryRecord>();
  const unreadable: Story['unreadable'][number][] = [];
  const commandOf = (commandId: string) => {
    let command = commands.get(commandId);
    if (!command) {
      command = { items: [], endings: [] };
      commands.set(commandId, command);
    }
    return command;
  };
  const at = (ms: number) => new Date(ms).toISOString();
  for (const entry of entries) {
    const place = { topic: entry.topic, partition: entry.partition, offset: entry.offset };
    switch (entry.kind) {
      case 'command': {
        if (entry.commandId === undefined) {
          unreadable.push({
            at: at(entry.at),
            offset: entry.offset,
            problem: `a ${entry.type} command without a readable commandId`,
          });
          break;
        }
        const command = commandOf(entry.commandId);
        command.type ??= entry.type;
        command.items.push({ kind: 'command', at: at(entry.at), ...place });
        break;
      }
      case 'event': {
        const { event } = entry;
        if (event.commandId === undefined) break;
        const command = commandOf(event.commandId);
        command.type ??= event.data.commandType;
        const item = storyEvent(event);
        command.items.push(item);
        if (item.terminal) command.endings.push(item);
        break;
      }
      case 'dead-letter': {
        const { letter } = entry;
        const item: StoryRecord = {
          kind: 'dead-letter',
          at: letter.failedAt ?? at(entry.at),
          ...place,
          errorCode: letter.errorCode,
          errorMessage: letter.errorMessage,
        };
        letters.set(`${entry.partition}/${entry.offset}`, item);
        commandOf(letter.commandId ?? `(unreadable record ${entry.offset})`).items.push(item);
        break;
      }
      case 'replay': {
        const { partition, offset } = entry.marker.replayOf;
        const letter = letters.get(`${partition}/${offset}`);
        if (letter) {
          (letter as { replayedAt?: string }).replayedAt = entry.marker.replayedAt ?? at(entry.at);
        }
        break;
      }
      case 'unreadable-event':
        unreadable.push({ at: at(entry.at), offset: entry.offset, problem: entry.problem });
        break;
    }
  }
  return {
    bizId,
    commands: [...commands].map(([commandId, { type, items, endings }]) => ({
      commandId,
      type,
      items,
      endings,
    })),
    unreadable,
    ledger: ledger && ledgerView(ledger),
  };
}

function storyEvent(event: BridgeEvent): StoryEvent {
  return {
    kind: 'event',
    at: event.time,
    type: event.type,
    ceId: event.id,
    step: stepOf(event.id),
    terminal: event.terminal,
    detail: eventDetail(event.type, event.data as Record<string, unknown>),
    call: callOf(event),
    failure: FAILURE.test(event.type),
    partition: event.record.partition,
    offset: event.record.offset,
  };
}

function ledgerView(entry: LedgerEntry): LedgerView {
  return {
    contractId: entry.contractId,
    // The forms of the ledger's schema: a commandId spent for good, `<commandId> <fingerprint>`;
    // another ending by its record alone, `ended@<topic>/<offset>` or `rejected@<topic>/<offset>`.
    done: entry.done
      .filter((item) => item.includes(' ') || !RECORD_ENDING.test(item))
      .map((item) => item.split(' ')[0] as string),
    open: entry.open.map((command) => ({
      commandId: command.commandId,
      steps: Object.keys(command.steps),
      ended: command.ended === true,
    })),
  };
}

/** CommandIds the ledger remembers that the topics no longer hold a record or event of. */
export function pastRetention(story: Story): string[] {
  if (!story.ledger) return [];
  const seen = new Set(story.commands.map((command) => command.commandId));
  const remembered = [...story.ledger.done, ...story.ledger.open.map((open) => open.commandId)];
  return [...new Set(remembered)].filter((commandId) => !seen.has(commandId));
}
