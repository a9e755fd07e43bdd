/**
 * `signing-bridge history <bizId>`: every record of one bizId, in the order written: its
 * commands, its events, its dead letters and their replays, then what each command ended with.
 * It reads, from the start to where it ends now, only the partition that holds the bizId in each
 * topic (murmur2 of the bizId, as every producer of the bridge's topics partitions).
 */
import { TopicsMissing } from '../errors.js';
import { keyPartition } from '../kafka/index.js';
import { humanLine, place, printEvent } from './ops/event-line.js';
import { EXIT } from './ops/exit-codes.js';
import { HISTORY_MAX_RECORDS, HistoryBook, type HistoryEntry } from './ops/history-book.js';
import {
  inputInvalid,
  type OperatorContext,
  type OperatorSpec,
  type Output,
  runOperator,
} from './ops/operator.js';

const USAGE = `Usage: signing-bridge history <bizId> [--json]

Prints every record of one bizId in the order written: each command (its type, commandId and
where it is), each event, each dead letter and each replay of one, then what each command
ended with. Reads the bizId's partition of every command topic, the events topic and the
dead-letter topic, from the oldest record they hold to the newest. At most
${HISTORY_MAX_RECORDS} records are shown; it says how many more there were.

Options:
  --json      one JSON object a line: the records ({"kind": "command" | "event" |
              "dead-letter" | "replay" | "unreadable-event", ...}), then the outcomes
              ({"kind": "outcome", "commandId", "commandType", "ended"})
  -h, --help  show this help
`;

export const HISTORY: OperatorSpec = {
  name: 'history',
  usage: USAGE,
  options: {},
  run: history,
};

export function main(argv: string[]): Promise<number> {
  return runOperator(HISTORY, argv);
}

async function history(context: OperatorContext, _values: unknown, positionals: string[]) {
  const [bizId, ...extra] = positionals;
  if (bizId === undefined || bizId === '') throw inputInvalid('<bizId>', 'give the bizId');
  if (extra.length > 0) throw inputInvalid('arguments', `unexpected "${extra.join(' ')}"`);
  const { topics } = context;
  const names = [...Object.values(topics.commands), topics.events, topics.deadLetter];
  const kafka = await context.connect();
  const admin = await kafka.clusterAdmin();
  const described = await admin.describeTopics(names, []).finally(() => admin.disconnect());
  if (described.size === 0) {
    throw new TopicsMissing(`none of the bridge's topics exists (${names.join(', ')})`, {
      details: { topics: names },
    });
  }
  const only = new Map(
    [...described.values()].map(({ topic, partitions }) => [
      topic,
      [keyPartition(Buffer.from(bizId), partitions)],
    ]),
  );
  const book = new HistoryBook(bizId, topics);
  const reader = kafka.reader({ topics: [...only.keys()], start: 'beginning', only, toEnd: true });
  await reader.start((records) => {
    for (const record of records) book.add(record);
  });
  await reader.done;
  print(context.out, bizId, book);
  return EXIT.ok;
}

function print(out: Output, bizId: string, book: HistoryBook): void {
  const entries = book.entries();
  out.heading(`bizId ${bizId}: ${entries.length} records`);
  for (const entry of entries) printEntry(out, entry, bizId);
  if (book.dropped > 0) out.note(`${book.dropped} more records of ${bizId} not shown`);
  out.heading('\noutcomes:');
  for (const { commandId, commandType, ended } of book.outcomes()) {
    const json = { kind: 'outcome', commandId, commandType, ended: ended?.type ?? null };
    const end = ended ? ended.type : out.style('yellow', '(no terminal event yet)');
    out.result(json, `  ${commandId.padEnd(36)}  ${(commandType ?? '?').padEnd(15)}  ${end}`);
  }
}

function printEntry(out: Output, entry: HistoryEntry, bizId: string): void {
  if (entry.kind === 'event') {
    printEvent(out, entry.event, { kind: 'event' });
    return;
  }
  const time = new Date(entry.at).toISOString();
  const { json, columns } = describe(entry, bizId);
  out.result(
    { kind: entry.kind, time, ...place(entry), ...json },
    humanLine(out, { time, bizId, ...columns }),
  );
}

/** What a record that is not an event says, as JSON fields and as columns. */
function describe(entry: Exclude<HistoryEntry, { kind: 'event' }>, bizId: string) {
  switch (entry.kind) {
    case 'command': {
      const { type, commandId } = entry;
      const detail = `${entry.topic} ${entry.partition}@${entry.offset}`;
      const columns = {
        what: `command ${type}`,
        style: 'cyan',
        commandId: commandId ?? '(unreadable)',
        detail,
      } as const;
      return { json: { type, commandId }, columns };
    }
    case 'dead-letter': {
      const { errorCode, errorMessage, commandId, source } = entry.letter;
      const columns = {
        what: 'dead letter',
        style: 'yellow',
        commandId,
        detail: `${errorCode}: ${errorMessage}`,
      } as const;
      return { json: { commandId, errorCode, errorMessage, source }, columns };
    }
    case 'replay': {
      const { replayOf } = entry.marker;
      const detail = `dead letter ${replayOf.partition}@${replayOf.offset} of ${bizId} sent back to its topic`;
      return {
        json: { replayOf },
        columns: { what: 'replayed', style: 'yellow', detail } as const,
      };
    }
    case 'unreadable-event':
      return {
        json: { problem: entry.problem },
        columns: { what: 'unreadable event', style: 'red', detail: entry.problem } as const,
      };
  }
}
