import { describe, expect, it } from 'vitest';
import { EMPTY_ENTRY, withStep } from './entry.js';
import {
  carefulRecord,
  decodeControlRecord,
  decodeEntry,
  entryRecord,
  entryTombstone,
  isControlKey,
  markerRecord,
  markerTombstone,
} from './ledger-record.js';

const control = (record: { key: string | Buffer | null; value: string | Buffer | null }) =>
  decodeControlRecord(String(record.key), record.value === null ? null : Buffer.from(record.value));

describe('ledger records', () => {
  it('an entry is keyed by its bizId, on the partition it is written for, and reads back equal', () => {
    const entry = withStep(
      EMPTY_ENTRY,
      'c1',
      'draft',
      { state: 'done', result: { contractId: 'K' } },
      5,
    );
    const record = entryRecord('ledger', 7, 'biz-1', entry, 'n-1');
    expect(record).toMatchObject({ topic: 'ledger', partition: 7, key: 'biz-1' });
    expect(decodeEntry(String(record.value))).toEqual(entry);
    expect(isControlKey('biz-1')).toBe(false);
  });

  it('an expired entry is deleted by a tombstone of its bizId', () => {
    expect(entryTombstone('ledger', 7, 'biz-1')).toEqual({
      topic: 'ledger',
      partition: 7,
      key: 'biz-1',
      value: null,
    });
  });

  it('a marker is keyed by its instance under a prefix no bizId can have, and says what the holder may have in hand', () => {
    const marker = { kind: 'acquired', instance: 'i-1', nonce: 'n', inHand: { t: '9' } } as const;
    const record = markerRecord('ledger', 2, marker);
    expect(isControlKey(String(record.key))).toBe(true);
    expect(control(record)).toEqual({ kind: 'marker', marker });
  });

  it('a careful-run record reads back equal', () => {
    const run = { instance: 'i', topic: 't', offset: '4', deaths: 1 };
    expect(control(carefulRecord('ledger', 2, run, 'n-1'))).toEqual({ kind: 'careful', run });
  });

  it('a marker tombstone deletes that instance key', () => {
    const record = markerTombstone('ledger', 2, 'i-1');
    expect(record.value).toBeNull();
    expect(control(record)).toEqual({ kind: 'tombstone', key: ' ownership i-1' });
  });

  it.each([
    ['a value that is not JSON', '{'],
    ['an entry of the wrong shape', '{"done":"c1"}'],
  ])('when an entry has %s, then it is not read', (_, value) => {
    expect(decodeEntry(value)).toBeUndefined();
  });

  it('when a marker has the wrong shape, then it is not read', () => {
    expect(control({ key: ' ownership i-1', value: '{"kind":"stolen"}' })).toBeUndefined();
  });
});
