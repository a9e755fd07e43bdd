/**
 * `signing-bridge dlq list | replay`: the dead-letter topic, read to its end as a journal of
 * dead letters and of the replays of them (ops/dlq-journal.ts, ops/dlq-replay.ts).
 */
import type { KafkaTools, ReadStart } from '../kafka/index.js';
import {
  DLQ_LIMITS,
  DlqJournal,
  type JournalEntry,
  type Sendable,
  sortOut,
} from './ops/dlq-journal.js';
import { replay, replayTransactionalId } from './ops/dlq-replay.js';
import { humanLine } from './ops/event-line.js';
import { EXIT } from './ops/exit-codes.js';
import {
  inputInvalid,
  type OperatorContext,
  type OperatorSpec,
  type Output,
  runOperator,
  type Values,
} from './ops/operator.js';
import { parseSince, SINCE_HELP } from './ops/since.js';

const USAGE = `Usage: signing-bridge dlq list [--since T] [--json]
       signing-bridge dlq replay [--since T] [--command-id X] [--dry-run] [--json]

The dead-letter topic holds a copy of every command record the bridge could not run: the record
untouched, with dlq-* headers saying why and where it came from.

  list    every dead letter (when it failed, its error, bizId, commandId, source topic), and
          whether it was replayed
  replay  sends each dead letter not yet replayed back to its source topic, untouched (key,
          value, headers without dlq-*), for the bridge to run again once what made it fail
          is fixed. Each replay is marked on the dead-letter topic in the same transaction, so
          a dead letter is sent back once, however often replay runs or wherever it stops.
          Only the bridge's own command topics are written to.

At most ${DLQ_LIMITS.letters} dead letters (${DLQ_LIMITS.bytes / 1024 / 1024} MiB) are handled per run; it says how many
more there are (run it again, or narrow it down).

Options:
  --since T         only dead letters written since T: ${SINCE_HELP}
  --command-id X    replay: only the dead letters of commandId X
  --dry-run         replay: say what would be sent back, send nothing
  --json            one JSON object per dead letter
  -h, --help        show this help
`;

export const DLQ: OperatorSpec = {
  name: 'dlq',
  usage: USAGE,
  options: {
    since: { type: 'string' },
    'command-id': { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
  run: dlq,
};

export function main(argv: string[]): Promise<number> {
  return runOperator(DLQ, argv);
}

async function dlq(context: OperatorContext, values: Values, positionals: string[]) {
  const [action, ...extra] = positionals;
  if (action !== 'list' && action !== 'replay')
    throw inputInvalid('<action>', 'give list or replay');
  if (extra.length > 0) throw inputInvalid('arguments', `unexpected "${extra.join(' ')}"`);
  if (action === 'list' && (values['command-id'] !== undefined || values['dry-run'])) {
    throw inputInvalid('list', '--command-id and --dry-run are options of replay');
  }
  const start: ReadStart =
    typeof values.since === 'string'
      ? { timestamp: parseSince(values.since).getTime() }
      : 'beginning';
  const commandId = typeof values['command-id'] === 'string' ? values['command-id'] : undefined;
  if (action === 'list') return list(context, start);
  return values['dry-run']
    ? dryRun(context, start, commandId)
    : replayAll(context, start, commandId);
}

async function list(context: OperatorContext, start: ReadStart): Promise<number> {
  const journal = await readJournal(await context.connect(), context.topics.deadLetter, start);
  for (const entry of journal.entries()) printLetter(context.out, entry);
  summarise(context.out, journal, '');
  return EXIT.ok;
}

async function dryRun(context: OperatorContext, start: ReadStart, commandId?: string) {
  const journal = await readJournal(
    await context.connect(),
    context.topics.deadLetter,
    start,
    commandId,
  );
  const { replayable, refused } = sortOut(journal.entries(), commandTopics(context));
  for (const entry of replayable) printLetter(context.out, entry, { action: 'would replay' });
  for (const { entry, reason } of refused) {
    printLetter(context.out, entry, { action: 'cannot replay', reason });
  }
  summarise(
    context.out,
    journal,
    `${replayable.length} would be replayed, ${refused.length} cannot be`,
  );
  return refused.length > 0 || journal.beyond > 0 ? EXIT.notAsExpected : EXIT.ok;
}

async function replayAll(context: OperatorContext, start: ReadStart, commandId?: string) {
  const kafka = await context.connect();
  const { deadLetter } = context.topics;
  const producer = await kafka.exclusiveProducer(replayTransactionalId(deadLetter));
  try {
    // Taking the transactional id first: an earlier replay's transaction has ended before the
    // journal is read, so its markers are seen.
    const transaction = await producer.begin();
    const journal = await readJournal(kafka, deadLetter, start, commandId);
    const { replayable, refused } = sortOut(journal.entries(), commandTopics(context));
    const letters = replayable.map((entry) => entry.letter as Sendable);
    const replayed = await replay(transaction, letters);
    for (const { letter, to } of replayed) {
      printLetter(context.out, { letter, replayed: true }, { action: 'replayed', to });
    }
    for (const { entry, reason } of refused) {
      printLetter(context.out, entry, { action: 'cannot replay', reason });
    }
    summarise(context.out, journal, `${replayed.length} replayed now, ${refused.length} cannot be`);
    return refused.length > 0 || journal.beyond > 0 ? EXIT.notAsExpected : EXIT.ok;
  } finally {
    await producer.disconnect();
  }
}

function commandTopics(context: OperatorContext): Set<string> {
  return new Set(Object.values(context.topics.commands));
}

async function readJournal(
  kafka: KafkaTools,
  topic: string,
  start: ReadStart,
  commandId?: string,
): Promise<DlqJournal> {
  const journal = new DlqJournal(commandId);
  const reader = kafka.reader({ topics: [topic], start, toEnd: true });
  await reader.start((records) => {
    for (const record of records) journal.add(record);
  });
  await reader.done;
  return journal;
}

interface Done {
  readonly action: 'replayed' | 'would replay' | 'cannot replay';
  readonly to?: { topic: string; partition: number; offset: string };
  readonly reason?: string;
}

function printLetter(out: Output, { letter, replayed }: JournalEntry, done?: Done): void {
  const { record, errorCode, errorMessage, commandId, source, failedAt, truncated } = letter;
  const bizId = letter.original.key?.toString();
  const json = {
    ...done,
    partition: record.partition,
    offset: record.offset,
    failedAt,
    errorCode,
    errorMessage,
    bizId,
    commandId,
    source,
    truncated,
    replayed,
  };
  const where = done?.to
    ? `→ ${done.to.topic} ${done.to.partition}@${done.to.offset}`
    : `from ${source.topic ?? '?'}`;
  const what = `${done?.action ?? (replayed ? 'replayed' : 'dead letter')} ${record.partition}@${record.offset}`;
  const time = failedAt ?? new Date(Number(record.timestamp)).toISOString();
  const detail = done?.reason ?? `${errorCode ?? '?'} ${where}: ${errorMessage ?? ''}`;
  const style = done?.action === 'cannot replay' ? 'red' : replayed ? 'dim' : 'yellow';
  out.result(json, humanLine(out, { time, what, style, bizId, commandId, detail }));
}

/** One closing line for people; what was past the limit, on stderr. */
function summarise(out: Output, journal: DlqJournal, counts: string): void {
  const entries = journal.entries();
  const before = entries.filter((e) => e.replayed).length;
  out.heading(
    `\n${entries.length} dead letters: ${counts}${counts ? ', ' : ''}${before} replayed before`,
  );
  if (journal.beyond > 0) {
    out.note(
      `${journal.beyond} more dead letters past the limit of one run: run it again, or narrow it with --since or --command-id`,
    );
  }
}
