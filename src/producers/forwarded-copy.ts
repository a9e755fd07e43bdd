/**
 * A command record found on a partition other than the one its key belongs to (its producer
 * partitions by another hash than murmur2: librdkafka's default CRC32, a random one), copied
 * untouched to that partition of the same topic, with a header saying where it was found.
 */

import type { RecordSource } from '../events/index.js';
import type { InboundRecord, OutboundRecord } from '../kafka/index.js';
import { headerText } from '../kafka/index.js';

/** `<topic>/<partition>/<offset>` of the record the copy was made from. */
export const FORWARDED_FROM_HEADER = 'sb-forwarded-from';
/**
 * The timestamp (ms) of the record the copy was made from: the copy gets a time of its own (on a
 * command topic, when the broker appended it), and a record's age (for its expiry) is its
 * original's.
 */
export const FORWARDED_TIME_HEADER = 'sb-forwarded-time';

export function forwardedCopy(record: InboundRecord, partition: number): OutboundRecord {
  return {
    topic: record.topic,
    partition,
    key: record.key,
    value: record.value,
    headers: {
      ...record.headers,
      [FORWARDED_FROM_HEADER]: `${record.topic}/${record.partition}/${record.offset}`,
      [FORWARDED_TIME_HEADER]: record.timestamp,
    },
  };
}

/**
 * Where the record's producer wrote it: the position a forwarded copy names, else the record's
 * own. Rejections and dead letters point there, where the producer can find what it sent. A
 * header naming another topic is not one the bridge wrote and is ignored.
 */
export function producedAt(record: InboundRecord): RecordSource {
  const own = { topic: record.topic, partition: record.partition, offset: record.offset };
  return forwardedFrom(record) ?? own;
}

/**
 * When the record was written (ms): its own timestamp, or, for a forwarded copy, its original's
 * when older (a header can make a record older, never younger). On a command topic the bridge
 * created both are the broker's append times (LogAppendTime). The time header counts only on a
 * copy the bridge made in this topic (its `sb-forwarded-from` names it): one carried from
 * another cluster under another topic name is judged by its own time here. Undefined when the
 * record has none (a timestamp of -1 from an old message format).
 */
export function producedTime(record: InboundRecord): number | undefined {
  const own = millis(record.timestamp);
  const header = headerText(record.headers, FORWARDED_TIME_HEADER);
  if (header === undefined || forwardedFrom(record) === undefined) return own;
  const named = millis(header);
  if (own === undefined || named === undefined) return own ?? named;
  return Math.min(own, named);
}

/** The position a forwarded copy's header names in the record's own topic; else undefined. */
function forwardedFrom(record: InboundRecord): RecordSource | undefined {
  const from = headerText(record.headers, FORWARDED_FROM_HEADER);
  const match = from === undefined ? null : /^(.+)\/(\d{1,10})\/(\d{1,20})$/.exec(from);
  if (match?.[1] !== record.topic) return undefined;
  return { topic: record.topic, partition: Number(match[2]), offset: match[3] as string };
}

const MILLIS = /^\d{1,16}$/;

/** A time in ms as a record or header has it; undefined when it is none (-1, empty, ...). */
function millis(text: string | undefined): number | undefined {
  return text !== undefined && MILLIS.test(text) ? Number(text) : undefined;
}
