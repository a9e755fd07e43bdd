import { describe, expect, it } from 'vitest';
import { inboundRecord } from '../../test/support/inbound-record.js';
import { CommandInvalid } from '../errors.js';
import { BATCH_OVERHEAD_BYTES, recordSize } from '../kafka/index.js';
import { DLQ_HEADERS, deadLetterRecord } from './dead-letter.js';

const record = inboundRecord({
  partition: 3,
  offset: 42,
  key: 'biz-1',
  value: '{not json',
  headers: { traceparent: Buffer.from('00-abc'), 'dlq-error-code': 'forged' },
  timestamp: 1767323045678,
});
const error = new CommandInvalid('commands.remind/3@42: the value is not JSON', {
  details: {
    topic: 'commands.remind',
    partition: 3,
    offset: '42',
    reason: 'not-json',
    fields: [],
    fieldsOmitted: 0,
  },
});
const limits = {
  maxRecordBytes: 1_048_588,
  maxKeyBytes: 1_024,
  maxHeaders: 64,
  maxHeaderBytes: 16_384,
};

describe('deadLetterRecord', () => {
  it('copies key, value and headers untouched and says why, where from and when', () => {
    const letter = deadLetterRecord(
      record,
      error,
      'dead-letter',
      limits,
      new Date('2026-01-02T03:05:00Z'),
    );
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
    const letter = deadLetterRecord({ ...record, key: null, value: null }, error, 'dlq', limits);
    expect([letter.key, letter.value]).toEqual([null, null]);
  });

  it('when the copy just fits the dead-letter topic, then it goes whole', () => {
    const whole = deadLetterRecord(record, error, 'dlq', limits);
    const maxRecordBytes = recordSize(whole) + BATCH_OVERHEAD_BYTES;
    const letter = deadLetterRecord(record, error, 'dlq', { ...limits, maxRecordBytes });
    expect(letter.value).toEqual(record.value);
    expect(letter.headers?.[DLQ_HEADERS.truncated]).toBeUndefined();
  });

  it('when the copy is one byte over what the topic takes, then its value is cut to fit and the headers say so', () => {
    const big = { ...record, value: Buffer.alloc(10_000, 'v') };
    const whole = deadLetterRecord(big, error, 'dlq', limits);
    const maxRecordBytes = recordSize(whole) + BATCH_OVERHEAD_BYTES - 1;
    const letter = deadLetterRecord(big, error, 'dlq', { ...limits, maxRecordBytes });
    expect(recordSize(letter) + BATCH_OVERHEAD_BYTES).toBeLessThanOrEqual(maxRecordBytes);
    expect(letter.headers).toMatchObject({
      [DLQ_HEADERS.truncated]: 'value',
      [DLQ_HEADERS.originalValueBytes]: '10000',
      [DLQ_HEADERS.sourceOffset]: '42',
    });
    expect(big.value.subarray(0, 100).equals((letter.value as Buffer).subarray(0, 100))).toBe(true);
  });

  it('when a record carries a megabyte header and a long key, then the copy drops its headers, cuts its key and still fits', () => {
    const hostile = {
      ...record,
      key: Buffer.alloc(50_000, 'k'),
      headers: { huge: Buffer.alloc(1_048_576, 'h') },
    };
    const letter = deadLetterRecord(hostile, error, 'dlq', limits);
    expect(recordSize(letter) + BATCH_OVERHEAD_BYTES).toBeLessThanOrEqual(limits.maxRecordBytes);
    expect(letter.headers?.huge).toBeUndefined();
    expect(String(letter.key).length).toBeLessThanOrEqual(200);
    expect(letter.headers?.[DLQ_HEADERS.truncated]).toBe('headers,key');
    expect(letter.value).toEqual(record.value);
  });
});
