/**
 * Which log of a command topic the partition's ledger speaks of (docs/design.md, "Offsets and
 * topics an operator changes"). The ledger names records by position: the forwarded mark (every
 * record up to an offset was forwarded), the offsets a crashed holder had in hand, a careful run.
 * A topic deleted and created again under the same name (infrastructure as code replacing it)
 * starts its offsets again at 0, and its new records would be taken for the old ones at the same
 * offsets: forwarded already, in hand of a crashed holder, the suspect of a crash loop.
 *
 * kafkajs 2.2.4 speaks Metadata up to v6 and so sees no topic ids (v10 and later carry them),
 * so the bridge tells one log from another by what Kafka guarantees of a log while it lives: its
 * start never moves back and its end never moves back. The partition's ledger keeps, per command
 * topic, the start it last found and the end it has seen (the offset after the last record it
 * took in hand, or found there); an acquisition compares them with the log as it is now. A log
 * that starts before the start seen, or ends before the end seen, is another one (the topic was
 * created again, or an unclean leader election lost records), and what the ledger says of
 * positions in it is dropped. A log created again that has already grown past the old end, and
 * whose old start was 0, is not told apart; a command's own marks in its bizId's entry name its
 * record's time too, so they are never taken for another record (src/ledger/admission.ts).
 */

import type { CommandLogs } from '../ledger/index.js';

/** A log's extent: the offset of its first record kept, and the offset after its last record. */
export interface LogExtent {
  readonly start: bigint;
  readonly end: bigint;
}

export type Logs = ReadonlyMap<string, LogExtent>;

/**
 * What the partition's ledger has seen of each command topic's log: its logs record, its end
 * raised to past the offsets the ledger's other marks name (records in hand, forwarded).
 */
export function seenLogs(recorded: Logs, ...named: ReadonlyMap<string, bigint>[]): Logs {
  const seen = new Map(recorded);
  for (const offsets of named) {
    for (const [topic, offset] of offsets) {
      const known = seen.get(topic);
      const end = offset + 1n;
      if (known === undefined) seen.set(topic, { start: 0n, end });
      else if (end > known.end) seen.set(topic, { start: known.start, end });
    }
  }
  return seen;
}

/** The command topics whose log now is not the one seen: it starts before it, or ends before it. */
export function renewedTopics(seen: Logs, now: Logs): string[] {
  const renewed: string[] = [];
  for (const [topic, was] of seen) {
    const is = now.get(topic);
    if (is !== undefined && (is.start < was.start || is.end < was.end)) renewed.push(topic);
  }
  return renewed;
}

/**
 * What to remember from now on: each log as found now, its end no lower than what was seen of
 * the same log; a log seen before and not found now (unknown at this acquisition) as seen.
 */
export function currentLogs(seen: Logs, now: Logs, renewed: readonly string[]): Logs {
  const current = new Map(seen);
  for (const [topic, is] of now) {
    const was = renewed.includes(topic) ? undefined : seen.get(topic);
    current.set(topic, { start: is.start, end: was && was.end > is.end ? was.end : is.end });
  }
  return current;
}

/** As the ledger's logs record keeps them. */
export function logsValue(logs: Logs): CommandLogs {
  const value: Record<string, { start: string; end: string }> = {};
  for (const [topic, { start, end }] of logs) {
    value[topic] = { start: start.toString(), end: end.toString() };
  }
  return value;
}
