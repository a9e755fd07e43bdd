import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inboundRecord } from '../../test/support/inbound-record.js';
import type { InboundRecord } from '../kafka/index.js';
import {
  FORWARDED_FROM_HEADER,
  FORWARDED_TIME_HEADER,
  forwardedCopy,
  producedAt,
  producedTime,
} from './forwarded-copy.js';

const record = (headers: InboundRecord['headers'] = {}) =>
  inboundRecord({ topic: 'cmds', partition: 5, offset: 17, key: 'biz-1', value: '{}', headers });

describe('forwarded copies', () => {
  it('copies key, value and headers untouched to the partition, naming where and when the record was written', () => {
    const copy = forwardedCopy(record({ trace: 'abc' }), 2);
    expect(copy).toEqual({
      topic: 'cmds',
      partition: 2,
      key: Buffer.from('biz-1'),
      value: Buffer.from('{}'),
      headers: { trace: 'abc', [FORWARDED_FROM_HEADER]: 'cmds/5/17', [FORWARDED_TIME_HEADER]: '0' },
    });
  });

  // A copy the bridge made in this topic: it names where its original was found.
  const copied = { [FORWARDED_FROM_HEADER]: 'cmds/1/2' };

  it('a forwarded copy was written when its original was; a header makes a record older, never younger', () => {
    const at = (timestamp: string, headers: InboundRecord['headers'] = {}) => ({
      ...record(headers),
      timestamp,
    });
    expect(producedTime(at('5000'))).toBe(5000);
    expect(producedTime(at('5000', { ...copied, [FORWARDED_TIME_HEADER]: '1000' }))).toBe(1000);
    expect(producedTime(at('5000', { ...copied, [FORWARDED_TIME_HEADER]: '9000' }))).toBe(5000);
    expect(producedTime(at('5000', { ...copied, [FORWARDED_TIME_HEADER]: '' }))).toBe(5000);
    expect(producedTime(at('-1'))).toBeUndefined();
  });

  it('on a LogAppendTime topic, a copy appended after its original is as old as the original was when appended', () => {
    const originalAppended = 1_700_000_000_000;
    const original = { ...record(), timestamp: String(originalAppended) };
    const copy = forwardedCopy(original, 2);
    // The broker stamps the copy when it appends it, a minute later; the header keeps the original's.
    const read = {
      ...record(copy.headers),
      partition: 2,
      timestamp: String(originalAppended + 60_000),
    };
    expect(producedTime(read)).toBe(originalAppended);
  });

  it.each([
    ['no sb-forwarded-from', {}],
    [
      'an sb-forwarded-from naming another topic (a copy mirrored under another name)',
      { [FORWARDED_FROM_HEADER]: 'other/1/2' },
    ],
  ])(
    'a time header with %s is not a copy the bridge made here: the record is as old as its own time',
    (_, from) => {
      const read = { ...record({ ...from, [FORWARDED_TIME_HEADER]: '1000' }), timestamp: '5000' };
      expect(producedTime(read)).toBe(5000);
    },
  );

  it('when the timestamp or the header of a copy is missing or not a time, then the other one counts, and the older of two', () => {
    const time = fc.oneof(
      fc.bigInt({ min: 0n, max: 10n ** 16n - 1n }).map(String),
      fc.constantFrom('', '-1', '12a', ' 5', '1e3', '00042', '12345678901234567'),
    );
    const valid = (text: string | undefined) =>
      text !== undefined && /^\d{1,16}$/.test(text) ? [Number(text)] : [];
    fc.assert(
      fc.property(time, fc.option(time, { nil: undefined }), (timestamp, header) => {
        const headers =
          header === undefined ? {} : { ...copied, [FORWARDED_TIME_HEADER]: Buffer.from(header) };
        const times = [...valid(timestamp), ...valid(header)];
        const expected = times.length === 0 ? undefined : Math.min(...times);
        expect(producedTime({ ...record(headers), timestamp })).toBe(expected);
      }),
    );
  });

  it('a record that was not forwarded was produced where it is', () => {
    expect(producedAt(record())).toEqual({ topic: 'cmds', partition: 5, offset: '17' });
  });

  it('a forwarded copy was produced where its header says it was found', () => {
    const copy = { ...record(forwardedCopy(record(), 2).headers), partition: 2, offset: '3' };
    expect(producedAt(copy)).toEqual({ topic: 'cmds', partition: 5, offset: '17' });
  });

  it.each([
    ['another topic', 'other/1/2'],
    ['no offset', 'cmds/1'],
    ['a partition that is not a number', 'cmds/x/2'],
    ['an empty value', ''],
  ])('a header naming %s is not one the bridge wrote: the record is where it is', (_, header) => {
    expect(producedAt(record({ [FORWARDED_FROM_HEADER]: header }))).toEqual({
      topic: 'cmds',
      partition: 5,
      offset: '17',
    });
  });
});
