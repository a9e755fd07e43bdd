import { describe, expect, it } from 'vitest';
import type { InboundRecord } from '../kafka/index.js';
import { FORWARDED_FROM_HEADER, forwardedCopy, producedAt } from './forwarded-copy.js';

const record = (headers: InboundRecord['headers'] = {}): InboundRecord => ({
  topic: 'cmds',
  partition: 5,
  offset: '17',
  key: Buffer.from('biz-1'),
  value: Buffer.from('{}'),
  headers,
  timestamp: '0',
});

describe('forwarded copies', () => {
  it('copies key, value and headers untouched to the partition, naming where the record was found', () => {
    const copy = forwardedCopy(record({ trace: 'abc' }), 2);
    expect(copy).toEqual({
      topic: 'cmds',
      partition: 2,
      key: Buffer.from('biz-1'),
      value: Buffer.from('{}'),
      headers: { trace: 'abc', [FORWARDED_FROM_HEADER]: 'cmds/5/17' },
    });
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
