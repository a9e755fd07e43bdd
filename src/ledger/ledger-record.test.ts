import { describe, expect, it } from 'vitest';
import { EMPTY_ENTRY, withStep } from './entry.js';
import { decodeLedgerRecord, entryRecord, markerRecord, markerTombstone } from './ledger-record.js';

const buffer = (value: string | Buffer | null) =>
  value === null ? null : Buffer.isBuffer(value) ? value : Buffer.from(value);

function roundTrip(record: { key: string | Buffer | null; value: string | Buffer | null }) {
  return decodeLedgerRecord(buffer(record.key), buffer(record.value));
}

describe('ledger records', () => {
  it('an entry is keyed by its bizId, on the partition it is written for, and reads back equal', () => {
    const entry = withStep(
      EMPTY_ENTRY,
      'c1',
      'draft',
      { state: 'done', result: { contractId: 'K' } },
      5,
    );
    const record = entryRecord('ledger', 7, 'biz-1', entry);
    expect(record).toMatchObject({ topic: 'ledger', partition: 7, key: 'biz-1' });
    expect(roundTrip(record)).toEqual({ kind: 'entry', bizId: 'biz-1', entry });
  });

  it('a marker is keyed by its instance under a prefix no bizId can have', () => {
    const marker = { kind: 'acquired', instance: 'i-1', nonce: 'n' } as const;
    const record = markerRecord('ledger', 2, marker);
    expect(String(record.key).startsWith(' ')).toBe(true);
    expect(roundTrip(record)).toEqual({ kind: 'marker', marker });
  });

  it('a marker tombstone deletes that instance key', () => {
    const record = markerTombstone('ledger', 2, 'i-1');
    expect(record.value).toBeNull();
    expect(roundTrip(record)).toEqual({
      kind: 'tombstone',
      key: markerRecord('l', 2, { kind: 'released', instance: 'i-1', nonce: 'x' }).key,
    });
  });

  it.each([
    ['no key', null, '{}'],
    ['a value that is not JSON', 'biz-1', '{'],
    ['an entry of the wrong shape', 'biz-1', '{"done":"c1"}'],
    ['a marker of the wrong shape', ' ownership i-1', '{"kind":"stolen"}'],
  ])('when a record has %s, then it is not read', (_, key, value) => {
    expect(decodeLedgerRecord(buffer(key), buffer(value))).toBeUndefined();
  });
});
