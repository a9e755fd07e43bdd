/**
 * Searching Kafka for a contract's story. By bizId: only its partition of each topic (murmur2 of
 * the bizId, as every producer of the bridge's topics partitions, and the same number on every
 * command topic and the ledger), and of each at most the newest CONSOLE_SCAN_RECORDS records;
 * older pages on request. By commandId alone (unique only within its bizId): the newest
 * COMMAND_SEARCH_SHARE of that bound in every partition of the events topic, for the bizIds whose
 * events carry it (ce_correlationid).
 */
import { keyPartition, type RecordView } from '../../kafka/index.js';
import { decodeEntry } from '../../ledger/index.js';
import type { LedgerEntry } from '../../schemas/messages/index.js';
import { type BridgeEvent, decodeEvent } from '../../sdk/index.js';
import { HistoryBook } from '../ops/history-book.js';
import { boundedWindow, type ConsoleKafka, type PartitionRead } from './console-kafka.js';
import { assembleStory, type Story } from './story.js';

/** A commandId alone is looked for in this share of the bound, in each events partition. */
export const COMMAND_SEARCH_SHARE = 10;
/** The bizIds shown for one commandId. */
const COMMAND_MATCHES_MAX = 50;

export type TopicRole = 'commands' | 'events' | 'dead letters' | 'ledger';
const ROLE_ORDER: readonly TopicRole[] = ['events', 'commands', 'dead letters', 'ledger'];

/** What one partition read says about the story's completeness. */
export interface ReadNote {
  readonly topic: string;
  readonly role: TopicRole;
  readonly partition: number;
  readonly from: string;
  readonly to: string;
  readonly records: number;
  /** The partition holds records before `from` that were not read (the bound; older pages). */
  readonly older: boolean;
  /** Reading began at the partition's first kept record, which is not its first ever (retention). */
  readonly retentionFrom: string | undefined;
  /** The topic's retention.ms. */
  readonly retentionMs: string | undefined;
  readonly unreadable: Readonly<Record<string, number>>;
}

export interface StoryAnswer {
  readonly story: Story;
  readonly notes: readonly ReadNote[];
  /** Records of the bizId past the story's own limit (HISTORY_MAX_RECORDS), not shown. */
  readonly dropped: number;
  readonly partitions: ReadonlyMap<string, number>;
  /** None of the bridge's topics exists. */
  readonly noTopics: boolean;
}

export async function searchStory(
  kafka: ConsoleKafka,
  bizId: string,
  bound: number,
  page = 0,
): Promise<StoryAnswer> {
  const { topics } = kafka;
  const described = await kafka.describe();
  const key = Buffer.from(bizId);
  const book = new HistoryBook(bizId, topics);
  let ledgerValue: Buffer | null | undefined;
  const roles = new Map<string, TopicRole>([
    ...Object.values(topics.commands).map((t) => [t, 'commands'] as const),
    [topics.events, 'events'],
    [topics.deadLetter, 'dead letters'],
    [topics.ledger, 'ledger'],
  ]);
  const partitions = new Map<string, number>();
  const reads = [...described.values()].map(async ({ topic, partitions: count, configs }) => {
    const partition = keyPartition(key, count);
    partitions.set(topic, partition);
    const range = await kafka.range(topic, partition);
    const window = boundedWindow(range, bound, page);
    const isLedger = topic === topics.ledger;
    let first: number | undefined;
    const read = await kafka.read(topic, range, window, (record: RecordView) => {
      first ??= record.timestamp;
      if (!record.keyEquals(key)) return;
      const copy = record.copy();
      if (isLedger) ledgerValue = copy.value;
      else book.add({ ...copy, topic, partition });
    });
    return note(read, roles.get(topic) ?? 'commands', window.reachesStart, first, configs);
  });
  const notes = (await Promise.all(reads)).sort(
    (a, b) =>
      ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role) || (a.topic < b.topic ? -1 : 1),
  );
  const ledger = ledgerValue ? decodeEntry(ledgerValue.toString()) : undefined;
  return {
    story: assembleStory(bizId, book.entries(), ledger as LedgerEntry | undefined),
    notes,
    dropped: book.dropped,
    partitions,
    noTopics: described.size === 0,
  };
}

function note(
  read: PartitionRead,
  role: TopicRole,
  reachesStart: boolean,
  firstAt: number | undefined,
  configs: Readonly<Record<string, string>>,
): ReadNote {
  const start = BigInt(read.range.start);
  const from = read.result.from;
  const removed = reachesStart && start > 0n;
  return {
    topic: read.topic,
    role,
    partition: read.partition,
    from: from.toString(),
    to: read.to.toString(),
    records: read.result.records,
    older: !reachesStart && from > start,
    retentionFrom: removed && firstAt !== undefined ? new Date(firstAt).toISOString() : undefined,
    retentionMs: configs['retention.ms'],
    unreadable: read.result.unreadable,
  };
}

export interface CommandMatch {
  readonly bizId: string;
  readonly time: string;
  readonly type: string;
}

export interface CommandAnswer {
  readonly matches: readonly CommandMatch[];
  /** Records looked at, over how many partitions, at most how many each. */
  readonly records: number;
  readonly partitions: number;
  readonly perPartition: number;
}

/** The bizIds whose events carry the commandId, among the newest events of every partition. */
export async function searchCommand(
  kafka: ConsoleKafka,
  commandId: string,
  bound: number,
): Promise<CommandAnswer> {
  const topic = kafka.topics.events;
  const perPartition = Math.max(1, Math.floor(bound / COMMAND_SEARCH_SHARE));
  const wanted = Buffer.from(commandId);
  const found = new Map<string, CommandMatch>();
  const ranges = await kafka.ranges(topic);
  const reads = ranges.map((range) =>
    kafka.read(topic, range, boundedWindow(range, perPartition), (record) => {
      if (!record.header('ce_correlationid')?.equals(wanted)) return;
      const event = decoded(record);
      const bizId = event?.subject;
      if (!event || bizId === undefined || found.size >= COMMAND_MATCHES_MAX) return;
      found.set(bizId, { bizId, time: event.time, type: event.type });
    }),
  );
  const done = await Promise.all(reads);
  return {
    matches: [...found.values()],
    records: done.reduce((sum, read) => sum + read.result.records, 0),
    partitions: ranges.length,
    perPartition,
  };
}

function decoded(record: RecordView): BridgeEvent | undefined {
  try {
    return decodeEvent({ ...record.copy(), topic: '', partition: 0 });
  } catch {
    return undefined;
  }
}
