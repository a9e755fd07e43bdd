/**
 * For unit tests: an Outbox that sends at once, each send through `sink` (which may refuse it)
 * and then kept in `sent`, with a short fixed backoff between retries.
 */
import type { OutboundRecord } from '../kafka/index.js';
import { Outbox } from './outbox.js';

export function recordingOutbox(
  sink: (records: readonly OutboundRecord[]) => Promise<void>,
  sent: OutboundRecord[],
): Outbox {
  return new Outbox({
    sink: async (records) => {
      await sink(records);
      sent.push(...records);
    },
    lingerMs: 0,
    maxRecords: 10,
    maxBatchBytes: 1_000_000,
    retry: { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 },
  });
}
