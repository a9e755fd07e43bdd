/**
 * Reading a time window of the events topic for the failures page: every partition from the
 * first event of the window (Kafka's time index) to its end, at most the newest
 * CONSOLE_SCAN_RECORDS of each. Only failure events are decoded; of the others only the endings
 * of commands that ended "outcome unknown" are looked at, by their headers.
 */
import { decodeEvent } from '../../sdk/index.js';
import type { ConsoleKafka } from './console-kafka.js';
import { FAILURE_TYPES, FailureTally } from './failures.js';

const FAILURES: ReadonlySet<string> = new Set(FAILURE_TYPES);

export interface FailureRead {
  readonly tally: FailureTally;
  readonly records: number;
  readonly partitions: number;
  /** Partitions whose window held more than the bound: their oldest part was not read. */
  readonly cut: number;
}

export async function readFailures(
  kafka: ConsoleKafka,
  window: { from: number; to: number; slices: number },
  bound: number,
): Promise<FailureRead> {
  const topic = kafka.topics.events;
  const tally = new FailureTally(window.from, window.to, window.slices);
  if (!(await kafka.describe()).has(topic)) return { tally, records: 0, partitions: 0, cut: 0 };
  const [ranges, starts] = await Promise.all([
    kafka.ranges(topic),
    kafka.offsetsAt(topic, window.from),
  ]);
  let cut = 0;
  const reads = ranges.map((range) => {
    const end = BigInt(range.end);
    const first = BigInt(starts.get(range.partition) ?? range.end);
    const from = first > end - BigInt(bound) ? first : end - BigInt(bound);
    if (from > first) cut++;
    return kafka.read(topic, range, { from, to: end }, (record) => {
      const type = record.header('ce_type')?.toString() ?? '';
      if (FAILURES.has(type)) {
        try {
          tally.addFailure(decodeEvent({ ...record.copy(), topic, partition: range.partition }));
        } catch {
          // Not an event this console can read: the story of its bizId shows it as such.
        }
        return;
      }
      const bizId = record.header('ce_subject')?.toString();
      const commandId = record.header('ce_correlationid')?.toString();
      if (bizId === undefined || commandId === undefined || !tally.awaits(bizId, commandId)) return;
      if (!record.header('ce_id')?.includes('@')) return;
      tally.addEnding(bizId, commandId, type, record.header('ce_time')?.toString() ?? '');
    });
  });
  const done = await Promise.all(reads);
  return {
    tally,
    records: done.reduce((total, read) => total + read.result.records, 0),
    partitions: ranges.length,
    cut,
  };
}
