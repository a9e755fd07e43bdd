/**
 * A copy of a command record the bridge could not run, for someone to look at: key, value and
 * headers untouched, plus `dlq-*` headers saying why, where it came from and when.
 */
import type { SigningBridgeError } from '../errors.js';
import type { InboundRecord, OutboundRecord } from '../kafka/index.js';

export const DLQ_HEADERS = {
  errorCode: 'dlq-error-code',
  errorMessage: 'dlq-error-message',
  sourceTopic: 'dlq-source-topic',
  sourcePartition: 'dlq-source-partition',
  sourceOffset: 'dlq-source-offset',
  sourceTimestamp: 'dlq-source-timestamp',
  failedAt: 'dlq-failed-at',
} as const;

export function deadLetterRecord(
  record: InboundRecord,
  error: SigningBridgeError,
  topic: string,
  now: Date = new Date(),
): OutboundRecord {
  return {
    topic,
    key: record.key,
    value: record.value,
    headers: {
      ...record.headers,
      [DLQ_HEADERS.errorCode]: error.code,
      [DLQ_HEADERS.errorMessage]: error.message,
      [DLQ_HEADERS.sourceTopic]: record.topic,
      [DLQ_HEADERS.sourcePartition]: String(record.partition),
      [DLQ_HEADERS.sourceOffset]: record.offset,
      [DLQ_HEADERS.sourceTimestamp]: new Date(Number(record.timestamp)).toISOString(),
      [DLQ_HEADERS.failedAt]: now.toISOString(),
    },
  };
}
