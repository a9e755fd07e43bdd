/**
 * The dead letters page: the dead-letter topic read as the CLI reads it (a journal of dead
 * letters and of their replays: ops/dlq-journal.ts), filtered by reason, command type and time;
 * and sending some back to their topic as `dlq replay` does (ops/dlq-replay.ts: the copy and its
 * marker in one transaction, under the one transactional id of all replays of the topic). The
 * console refuses, besides what the CLI refuses, a record already sent back CONSOLE_REPLAY_LIMIT
 * times: it came back each time, and sending it again would only fill the topic.
 */
import { createHash } from 'node:crypto';
import type { KafkaTools } from '../../kafka/index.js';
import type { CommandType, TopicNames } from '../../schemas/messages/index.js';
import {
  DlqJournal,
  type JournalEntry,
  type Refused,
  type Sendable,
  sortOut,
} from '../ops/dlq-journal.js';
import { type Replayed, replay, replayTransactionalId } from '../ops/dlq-replay.js';
import { boundedWindow, type ConsoleKafka } from './console-kafka.js';
import type { LetterId } from './inputs.js';

export interface LetterFilter {
  readonly reason?: string | undefined;
  readonly type?: CommandType | undefined;
  /** ms since the epoch, inclusive; `until` exclusive. */
  readonly since?: number | undefined;
  readonly until?: number | undefined;
}

export interface LetterRow extends JournalEntry {
  readonly type: CommandType | undefined;
  /** Times a dead letter of this same record (key and value) was sent back. */
  readonly sentBack: number;
}

/** Every partition of the dead-letter topic, its newest `bound` records each, as a journal. */
export async function readLetters(kafka: ConsoleKafka, bound: number): Promise<DlqJournal> {
  const topic = kafka.topics.deadLetter;
  const journal = new DlqJournal();
  if (!(await kafka.describe()).has(topic)) return journal;
  const ranges = await kafka.ranges(topic);
  // One partition after the other: the journal is filled in each partition's offset order.
  for (const range of ranges) {
    await kafka.read(topic, range, boundedWindow(range, bound), (record) => {
      journal.add({ ...record.copy(), topic, partition: range.partition });
    });
  }
  return journal;
}

/** The journal's dead letters with their command type and how often their record went back. */
export function rows(journal: DlqJournal, topics: TopicNames): LetterRow[] {
  const typeOf = new Map(
    Object.entries(topics.commands).map(([type, topic]) => [topic, type as CommandType]),
  );
  const entries = journal.entries();
  const sentBack = new Map<string, number>();
  for (const entry of entries) {
    if (entry.replayed) sentBack.set(identity(entry), (sentBack.get(identity(entry)) ?? 0) + 1);
  }
  return entries.map((entry) => ({
    ...entry,
    type: typeOf.get(entry.letter.source.topic ?? ''),
    sentBack: sentBack.get(identity(entry)) ?? 0,
  }));
}

export function matches(row: LetterRow, filter: LetterFilter): boolean {
  const at = failedAt(row);
  return (
    (filter.reason === undefined || row.letter.errorCode === filter.reason) &&
    (filter.type === undefined || row.type === filter.type) &&
    (filter.since === undefined || at >= filter.since) &&
    (filter.until === undefined || at < filter.until)
  );
}

export function failedAt(row: JournalEntry): number {
  const { failedAt: text, record } = row.letter;
  const parsed = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(parsed) ? Number(record.timestamp) : parsed;
}

export function idOf(row: JournalEntry): string {
  return `${row.letter.record.partition}/${row.letter.record.offset}`;
}

/**
 * Which of the rows asked for may go back, and why the others may not: replayed already, cut to
 * fit, not from a command topic (the CLI's rules), or its record sent back `limit` times.
 */
export function decide(
  asked: readonly LetterRow[],
  topics: TopicNames,
  limit: number,
): { replayable: LetterRow[]; refused: Refused[] } {
  const refused: Refused[] = asked
    .filter((row) => row.replayed)
    .map((entry) => ({ entry, reason: 'sent back already' }));
  const { replayable, refused: cannot } = sortOut(asked, new Set(Object.values(topics.commands)));
  const allowed: LetterRow[] = [];
  for (const entry of replayable as LetterRow[]) {
    if (entry.sentBack >= limit) {
      refused.push({
        entry,
        reason: `its record was sent back ${entry.sentBack} times already and came back each time (the limit is ${limit}): fix what makes it fail, or send a corrected command`,
      });
    } else allowed.push(entry);
  }
  return { replayable: allowed, refused: [...refused, ...cannot] };
}

export interface SendBack {
  readonly replayed: readonly Replayed[];
  readonly refused: readonly Refused[];
  /** Named dead letters not found in the journal (gone with retention, or never there). */
  readonly missing: readonly string[];
}

/**
 * Sends the chosen dead letters back in one transaction. The transactional id is taken first:
 * a replay under way elsewhere is fenced (or has ended) before the journal is read, so its
 * markers are seen and nothing is sent twice.
 */
export async function sendBack(
  tools: KafkaTools,
  kafka: ConsoleKafka,
  choose: (rows: readonly LetterRow[]) => { rows: LetterRow[]; missing: string[] },
  options: { bound: number; limit: number },
): Promise<SendBack> {
  const { topics } = kafka;
  const producer = await tools.exclusiveProducer(replayTransactionalId(topics.deadLetter));
  try {
    const transaction = await producer.begin();
    const chosen = choose(rows(await readLetters(kafka, options.bound), topics));
    const { replayable, refused } = decide(chosen.rows, topics, options.limit);
    if (replayable.length === 0) {
      await transaction.abort();
      return { replayed: [], refused, missing: chosen.missing };
    }
    const replayed = await replay(
      transaction,
      replayable.map((row) => row.letter as Sendable),
    );
    return { replayed, refused, missing: chosen.missing };
  } finally {
    await producer.disconnect();
  }
}

/** The rows named, and the names not found. */
export function named(rowsRead: readonly LetterRow[], ids: readonly LetterId[]) {
  const byId = new Map(rowsRead.map((row) => [idOf(row), row]));
  const found: LetterRow[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const row = byId.get(`${id.partition}/${id.offset}`);
    if (row) found.push(row);
    else missing.push(`${id.partition}/${id.offset}`);
  }
  return { rows: found, missing };
}

function identity(entry: JournalEntry): string {
  const { key, value } = entry.letter.original;
  return createHash('sha256')
    .update(key ?? Buffer.alloc(0))
    .update('\u0000')
    .update(value ?? Buffer.alloc(0))
    .digest('base64url');
}
