import { describe, expect, it } from 'vitest';
import { asRead } from '../../test/support/inbound-record.js';
import type { OutboundRecord } from '../kafka/index.js';
import { EMPTY_ENTRY, withCommandEnded } from './entry.js';
import { LedgerReader } from './ledger-reader.js';
import {
  entryRecord,
  markerRecord,
  markerTombstone,
  type OwnershipMarker,
} from './ledger-record.js';

const self = { instance: 'me', nonce: 'now' };
const marker = (kind: OwnershipMarker['kind'], instance: string, nonce = 'n') =>
  markerRecord('ledger', 0, { kind, instance, nonce });
const entry = (bizId: string, commandId: string) =>
  entryRecord('ledger', 0, bizId, withCommandEnded(EMPTY_ENTRY, commandId, 10));

const doneOf = (stored: string | undefined) =>
  stored === undefined ? undefined : JSON.parse(stored.slice(stored.indexOf('|') + 1)).done;

let offset = 0;
const inbound = (record: OutboundRecord) =>
  asRead(record, { partition: 0, offset: offset++, timestamp: 0 });

function read(records: OutboundRecord[]) {
  const reader = new LedgerReader(self);
  const facts = records.map((record) => reader.apply(inbound(record))).filter(Boolean);
  return { reader, facts };
}

describe('LedgerReader', () => {
  it('when it reads its own acquired marker, then it tells which other instances last marked it acquired, and holds the last entry of each bizId before it', () => {
    const { reader, facts } = read([
      marker('acquired', 'old'),
      entry('b1', 'c1'),
      entry('b1', 'c2'),
      entry('b2', 'c3'),
      marker('acquired', 'me', 'now'),
    ]);
    expect(facts).toEqual([{ kind: 'own-marker-read', holders: ['old'] }]);
    expect(doneOf(reader.entries.get('b1'))).toEqual(['c2']);
    expect([...reader.entries.keys()]).toEqual(['b1', 'b2']);
  });

  it('tells nothing of its own earlier acquisitions, only of this one', () => {
    expect(read([marker('acquired', 'me', 'before'), entry('b1', 'c1')]).facts).toEqual([]);
  });

  it('when another instance released, then it tells so, and that instance is no holder any more', () => {
    const { facts } = read([
      marker('acquired', 'a'),
      marker('released', 'a'),
      marker('acquired', 'me', 'now'),
    ]);
    expect(facts).toEqual([
      { kind: 'holder-released', instance: 'a' },
      { kind: 'own-marker-read', holders: [] },
    ]);
  });

  it('when an instance marker was deleted, then that instance is neither a holder nor one whose markers remain', () => {
    const { reader, facts } = read([
      marker('acquired', 'b'),
      markerTombstone('ledger', 0, 'b'),
      marker('acquired', 'me', 'now'),
    ]);
    expect(facts).toEqual([{ kind: 'own-marker-read', holders: [] }]);
    expect(reader.otherInstances()).toEqual([]);
  });

  it('keeps reading what a previous holder writes after its own marker, up to its release', () => {
    const { reader } = read([
      marker('acquired', 'old'),
      marker('acquired', 'me', 'now'),
      entry('b1', 'c9'),
      marker('released', 'old'),
    ]);
    expect(doneOf(reader.entries.get('b1'))).toEqual(['c9']);
    expect(reader.otherInstances()).toEqual(['old']);
  });

  it('when an entry was deleted (it expired), then the bizId has no entry', () => {
    const { reader } = read([
      entry('b1', 'c1'),
      { topic: 'ledger', partition: 0, key: 'b1', value: null },
      marker('acquired', 'me', 'now'),
    ]);
    expect(reader.entries.has('b1')).toBe(false);
  });

  it('skips records it cannot read and counts them', () => {
    const { reader } = read([
      { topic: 'ledger', key: ' ownership x', value: 'garbage' },
      marker('acquired', 'me', 'now'),
    ]);
    expect(reader.unreadable).toBe(1);
  });
});
