import { describe, expect, it } from 'vitest';
import { CallLog, type CallRecord } from './call-log.js';

const call = (n: number, operation = 'createDraft'): CallRecord => ({
  received: new Date(n).toISOString(),
  time: new Date(n).toISOString(),
  operation,
  bizId: `b${n}`,
  httpStatus: 200,
  code: '0',
  ok: true,
  applied: true,
});

describe('CallLog', () => {
  it('keeps the last `limit` calls, oldest first', () => {
    const log = new CallLog(3);
    for (let n = 1; n <= 5; n += 1) log.record(call(n));
    expect(log.list().map((c) => c.bizId)).toEqual(['b3', 'b4', 'b5']);
  });

  it('filters by operation, bizId and contractId', () => {
    const log = new CallLog();
    log.record(call(1));
    log.record(call(2, 'remindSignatories'));
    expect(log.list({ operation: 'remindSignatories' }).map((c) => c.bizId)).toEqual(['b2']);
    expect(log.list({ bizId: 'b1' })).toHaveLength(1);
    expect(log.list({ contractId: 'none' })).toEqual([]);
  });

  it('clear empties it', () => {
    const log = new CallLog(2);
    log.record(call(1));
    log.clear();
    expect(log.list()).toEqual([]);
  });
});
