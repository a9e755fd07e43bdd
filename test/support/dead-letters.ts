// Dead letters as the bridge writes them (src/producers/dead-letter.ts), for tests of what reads
// the dead-letter topic.
import { CommandInvalid } from '../../src/errors.js';
import type { InboundRecord } from '../../src/kafka/index.js';
import { deadLetterRecord } from '../../src/producers/dead-letter.js';

/** Dead-letter limits with room enough that nothing is cut. */
export const ROOMY_DEAD_LETTER_LIMITS = {
  maxRecordBytes: 1_048_588,
  maxKeyBytes: 1_024,
  maxHeaders: 64,
  maxHeaderBytes: 16_384,
};

export function schemaError(message = 'payload.pass: expected boolean'): CommandInvalid {
  return new CommandInvalid(message, {
    details: {
      topic: 't',
      partition: 0,
      offset: '0',
      reason: 'schema',
      fields: [],
      fieldsOmitted: 0,
    },
  });
}

/** The dead letter the bridge writes for `record` on `topic`. */
export function deadLetterOf(record: InboundRecord, topic: string, error = schemaError()) {
  return deadLetterRecord(record, error, topic, ROOMY_DEAD_LETTER_LIMITS);
}
