/**
 * Records of the dead-letter topic: copies of command records the bridge could not run (the
 * record untouched, plus `dlq-*` headers saying why and where from), and the markers
 * `signing-bridge dlq replay` writes there once it sent a dead letter back to its source topic.
 */
import type { RecordHeaders } from '../kafka/index.js';
import { headerText } from '../kafka/index.js';
import { DLQ_HEADER_PREFIX, DLQ_HEADERS, REPLAY_MARKER_HEADERS } from '../producers/dead-letter.js';
import type { KafkaRecord } from './events.js';

export interface RecordAt {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  /** Milliseconds since the epoch, as a decimal string. */
  readonly timestamp: string;
}

export interface DeadLetter {
  readonly kind: 'dead-letter';
  readonly errorCode: string | undefined;
  readonly errorMessage: string | undefined;
  /** Where the command record was; what the record's headers say (they may be missing). */
  readonly source: {
    readonly topic: string | undefined;
    readonly partition: number | undefined;
    readonly offset: string | undefined;
    readonly timestamp: string | undefined;
  };
  readonly failedAt: string | undefined;
  /**
   * What the bridge cut for the copy to fit the dead-letter topic (`headers`, `key`, `value`);
   * empty for a copy of the whole record. The original stays at `source` until its retention.
   */
  readonly truncated: readonly string[];
  /** The command's commandId, when its value is JSON with one. */
  readonly commandId: string | undefined;
  /** Every header of the dead-letter record, `dlq-*` ones included. */
  readonly headers: RecordHeaders;
  /** The command record as it came: key, value and its own headers (no `dlq-*` ones). */
  readonly original: {
    readonly key: Buffer | null;
    readonly value: Buffer | null;
    readonly headers: RecordHeaders;
  };
  readonly record: RecordAt;
}

export interface ReplayMarker {
  readonly kind: 'replay-marker';
  /** The dead letter, in this same topic, that was sent back to its source topic. */
  readonly replayOf: { readonly partition: number; readonly offset: string };
  readonly replayedAt: string | undefined;
  readonly record: RecordAt;
}

export function decodeDeadLetter(record: KafkaRecord): DeadLetter | ReplayMarker {
  const headers = record.headers ?? {};
  const header = (name: string) => headerText(headers, name);
  const { topic, partition, offset, timestamp } = record;
  const at: RecordAt = { topic, partition, offset, timestamp };
  const replayOf = /^(\d+)\/(\d+)$/.exec(header(REPLAY_MARKER_HEADERS.replayOf) ?? '');
  if (replayOf) {
    return {
      kind: 'replay-marker',
      replayOf: { partition: Number(replayOf[1]), offset: replayOf[2] as string },
      replayedAt: header(REPLAY_MARKER_HEADERS.replayedAt),
      record: at,
    };
  }
  const sourcePartition = header(DLQ_HEADERS.sourcePartition);
  return {
    kind: 'dead-letter',
    errorCode: header(DLQ_HEADERS.errorCode),
    errorMessage: header(DLQ_HEADERS.errorMessage),
    source: {
      topic: header(DLQ_HEADERS.sourceTopic),
      partition: sourcePartition === undefined ? undefined : Number(sourcePartition),
      offset: header(DLQ_HEADERS.sourceOffset),
      timestamp: header(DLQ_HEADERS.sourceTimestamp),
    },
    failedAt: header(DLQ_HEADERS.failedAt),
    truncated: (header(DLQ_HEADERS.truncated) ?? '').split(',').filter(Boolean),
    commandId: commandIdOf(record.value),
    headers,
    original: {
      key: record.key,
      value: record.value,
      headers: Object.fromEntries(
        Object.entries(headers).filter(([name]) => !name.startsWith(DLQ_HEADER_PREFIX)),
      ),
    },
    record: at,
  };
}

/** The commandId of a command record's value, when it is JSON with one. */
export function commandIdOf(value: Buffer | null): string | undefined {
  try {
    const id = (JSON.parse(value?.toString() ?? '') as { commandId?: unknown }).commandId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
