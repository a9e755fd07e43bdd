import { describe, expect, it } from 'vitest';
import { CommandInvalid } from '../errors.js';
import type { InboundRecord } from '../kafka/index.js';
import { deadLetterRecord } from './dead-letter.js';

const record: InboundRecord = {
  topic: 'commands.remind',
  partition: 3,
  offset: '42',
  key: Buffer.from('biz-1'),
  value: Buffer.from('{not json'),
  headers: { traceparent: Buffer.from('00-abc'), 'dlq-error-code': 'forged' },
  timestamp: '1767323045678',
};
const error = new CommandInvalid('commands.remind/3@42: the value is not JSON', {
  details: { topic: 'commands.remind', partition: 3, offset: '42', reason: 'not-json', fields: [] },
});

describe('deadLetterRecord', () => {
  it('copies key, value and headers untouched and says why, where from and when', () => {
    const letter = deadLetterRecord(record, error, 'dead-letter', new Date('2026-01-02T03:05:00Z'));
    expect(letter).toEqual({
      topic: 'dead-letter',
      key: record.key,
      value: record.value,
      headers: {
        traceparent: Buffer.from('00-abc'),
        'dlq-error-code': 'SB_ERR_COMMAND_INVALID',
        'dlq-error-message': 'commands.remind/3@42: the value is not JSON',
        'dlq-source-topic': 'commands.remind',
        'dlq-source-partition': '3',
        'dlq-source-offset': '42',
        'dlq-source-timestamp': '2026-01-02T03:04:05.678Z',
        'dlq-failed-at': '2026-01-02T03:05:00.000Z',
      },
    });
  });

  it('keeps a null value and key as null', () => {
    const letter = deadLetterRecord({ ...record, key: null, value: null }, error, 'dlq');
    expect([letter.key, letter.value]).toEqual([null, null]);
  });
});
