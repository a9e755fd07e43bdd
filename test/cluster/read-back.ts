/**
 * The topics read back from the start once a run is over, by readers that were not there while it
 * ran (read_committed, all each topic holds), and what they must show: nothing a client or the
 * bridge was told was written is missing. Every command whose send resolved is where the send
 * said; every platform call was recorded `started` in the ledger before it was made; each bizId's
 * ledger entry, restored as a new owner of its partition would restore it, lists every command of
 * it that ended and none that did not, and has none under way. And the platform reminded each
 * contract as often as its commands in the topic ask.
 */
import type { InboundRecord } from '../../src/kafka/index.js';
import {
  decodeEntry,
  isControlKey,
  Ledger,
  LedgerReader,
  priorUse,
} from '../../src/ledger/index.js';
import type { TopicNames } from '../../src/schemas/messages/index.js';
import { decodeEvent, type SentCommand } from '../../src/sdk/index.js';
import type { CallRecord } from '../../src/simulator/call-log.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { Reminder } from '../group/reminders.js';
import type { ReceivedEvent } from '../support/event-collector.js';
import { readTopic } from '../support/topic-reader.js';

const SENT = 'signingbridge.reminder.sent';

export interface ReadBack {
  /** The command topic's records. */
  readonly commands: readonly InboundRecord[];
  /** Every event of the events topic (the sentinels of untilSettled left out). */
  readonly events: ReceivedEvent[];
  readonly ledger: readonly InboundRecord[];
}

export async function readBack(brokers: string[], topics: TopicNames): Promise<ReadBack> {
  const [commands, eventRecords, ledger] = await Promise.all([
    readTopic(brokers, topics.commands.remind),
    readTopic(brokers, topics.events),
    readTopic(brokers, topics.ledger),
  ]);
  const events = eventRecords
    .filter((record) => record.value !== null)
    .map((record): ReceivedEvent => {
      const event = decodeEvent(record);
      const { partition, offset, key } = event.record;
      const data = event.data as ReceivedEvent['data'];
      return { partition, offset, key, event, data, terminal: event.terminal };
    });
  return { commands, events, ledger };
}

/** The commandId a command record's value names. */
export function commandIdOf(record: InboundRecord): string | undefined {
  const value = JSON.parse(record.value?.toString() ?? 'null') as { commandId?: string } | null;
  return value?.commandId;
}

/**
 * Sends that resolved whose command is not at the partition and offset the send said: each with
 * what is there instead and where, if anywhere, its command is.
 */
export function sentButNotThere(
  sent: readonly SentCommand[],
  commands: readonly InboundRecord[],
): string[] {
  const at = new Map(commands.map((r) => [`${r.partition}@${r.offset}`, commandIdOf(r)]));
  const where = new Map(commands.map((r) => [commandIdOf(r), `${r.partition}@${r.offset}`]));
  return sent
    .filter((s) => at.get(`${s.partition}@${s.offset}`) !== s.commandId)
    .map((s) => {
      const there = at.get(`${s.partition}@${s.offset}`) ?? 'nothing';
      return `${s.commandId} (sent to ${s.partition}@${s.offset}, where ${there} is; itself at ${where.get(s.commandId) ?? 'no offset'})`;
    });
}

/** Commands the topic holds more than once: a send written twice, which idempotence forbids. */
export function writtenTwice(commands: readonly InboundRecord[]): string[] {
  const at = new Map<string, string[]>();
  for (const record of commands) {
    const commandId = commandIdOf(record) ?? '?';
    at.set(commandId, [...(at.get(commandId) ?? []), `${record.partition}@${record.offset}`]);
  }
  return [...at]
    .filter(([, positions]) => positions.length > 1)
    .map(([commandId, positions]) => `${commandId} at ${positions.join(' and ')}`);
}

/** Positions that more than one resolved send said its command went to. */
export function positionsSaidTwice(sent: readonly SentCommand[]): string[] {
  const said = new Map<string, string[]>();
  for (const s of sent) {
    const position = `${s.partition}@${s.offset}`;
    said.set(position, [...(said.get(position) ?? []), s.commandId]);
  }
  return [...said]
    .filter(([, ids]) => ids.length > 1)
    .map(([position, ids]) => `${position}: ${ids.join(' and ')}`);
}

/**
 * What the ledger topic shows of the reminders, against their endings (`events`) and the calls
 * the platform received (`calls`, each naming its bizId and signatory).
 */
export function ledgerProblems(
  ledgerTopic: string,
  records: readonly InboundRecord[],
  reminders: readonly Reminder[],
  events: readonly ReceivedEvent[],
  calls: readonly CallRecord[],
): Record<string, string[]> {
  const endings = new Map<string, string>();
  for (const { event, terminal } of events) {
    if (terminal && event.commandId !== undefined) endings.set(event.commandId, event.type);
  }
  const entries = restored(ledgerTopic, records);
  const started = startedRecords(records);
  const byCall = new Map(reminders.map((r) => [`${r.bizId}/${r.signatoryId}`, r.commandId]));
  const found = {
    endedNotInLedger: [] as string[],
    inLedgerWithoutEnding: [] as string[],
    underWayInLedger: [] as string[],
    calledWithoutStartedRecord: [] as string[],
  };
  for (const { commandId, bizId } of reminders) {
    const use = entries(bizId, commandId);
    const ending = endings.get(commandId);
    const listed = use?.state === 'ended-final' || use?.state === 'ended-not-final';
    if (ending !== undefined && (!listed || (ending === SENT && use?.state !== 'ended-final')))
      found.endedNotInLedger.push(`${commandId} (${bizId}): ${ending}, ledger ${use?.state}`);
    if (ending === undefined && listed)
      found.inLedgerWithoutEnding.push(`${commandId} (${bizId}): ledger ${use?.state}`);
    if (use?.state === 'under-way') found.underWayInLedger.push(`${commandId} (${bizId})`);
  }
  for (const call of calls) {
    const commandId = byCall.get(`${call.bizId}/${call.signatoryId}`);
    if (commandId !== undefined && !started.has(commandId))
      found.calledWithoutStartedRecord.push(
        `${commandId} (${call.bizId}, call at ${call.received})`,
      );
  }
  return found;
}

/**
 * Each bizId's entry as a new owner of its partition restores it (ledger-reader.ts: the records
 * of an acquisition that had lost the partition skipped), and a command's use in it.
 */
function restored(topic: string, records: readonly InboundRecord[]) {
  const self = { instance: 'read-back', nonce: 'read-back' };
  const readers = new Map<number, LedgerReader>();
  const partitionOf = new Map<string, number>();
  for (const record of records) {
    let reader = readers.get(record.partition);
    if (reader === undefined) {
      reader = new LedgerReader(self, new Map());
      readers.set(record.partition, reader);
    }
    reader.apply(record);
    const key = record.key?.toString();
    if (key !== undefined && !isControlKey(key)) partitionOf.set(key, record.partition);
  }
  const ledger = new Ledger(topic);
  for (const [partition, reader] of readers) ledger.adopt(partition, reader.entries, self.nonce);
  return (bizId: string, commandId: string) => {
    const partition = partitionOf.get(bizId);
    return partition === undefined ? undefined : priorUse(ledger.get(partition, bizId), commandId);
  };
}

/**
 * Every command some ledger record shows with a step `started`, and the time of the first such
 * record (its writer's clock, ms since the epoch).
 */
export function startedRecords(records: readonly InboundRecord[]): Map<string, number> {
  const started = new Map<string, number>();
  for (const { key, value, timestamp } of records) {
    if (key === null || value === null || isControlKey(key.toString())) continue;
    for (const open of decodeEntry(value.toString())?.open ?? []) {
      const isStarted = Object.values(open.steps).some((step) => step.state === 'started');
      if (isStarted && !started.has(open.commandId)) started.set(open.commandId, Number(timestamp));
    }
  }
  return started;
}

/** Each command's delay, from its record's time to its first ending's, in ms, sorted. */
export function endingDelays(
  commands: readonly InboundRecord[],
  events: readonly ReceivedEvent[],
): number[] {
  const ended = new Map<string, number>();
  for (const { event, terminal } of events) {
    if (!terminal || event.commandId === undefined || ended.has(event.commandId)) continue;
    ended.set(event.commandId, Number(event.record.timestamp));
  }
  const delays: number[] = [];
  for (const record of commands) {
    const at = ended.get(commandIdOf(record) ?? '');
    if (at !== undefined) delays.push(at - Number(record.timestamp));
  }
  return delays.sort((a, b) => a - b);
}

/** Contracts the platform reminded other than as often as their commands asked. */
export async function remindedOtherThanAsked(
  simulator: RunningSimulator,
  bizIds: readonly string[],
  asked: ReadonlyArray<{ bizId: string }>,
): Promise<string[]> {
  const commands = new Map<string, number>(bizIds.map((bizId) => [bizId, 0]));
  for (const { bizId } of asked) commands.set(bizId, (commands.get(bizId) ?? 0) + 1);
  const wrong: string[] = [];
  for (const [bizId, count] of commands) {
    const { reminders } = await simulator.admin.contract({ bizId });
    if (reminders.length !== count)
      wrong.push(`${bizId}: ${reminders.length} reminders for ${count} commands`);
  }
  return wrong;
}
