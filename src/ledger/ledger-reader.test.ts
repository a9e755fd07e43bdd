import { describe, expect, it } from 'vitest';
import { asRead } from '../../test/support/inbound-record.js';
import type { OutboundRecord } from '../kafka/index.js';
import { EMPTY_ENTRY, withCommandEnded } from './entry.js';
import { LedgerReader } from './ledger-reader.js';
import {
  entryRecord,
  entryTombstone,
  forwardedRecord,
  logsRecord,
  markerRecord,
  markerTombstone,
  type OwnershipMarker,
} from './ledger-record.js';

const self = { instance: 'me', nonce: 'now' };
const marker = (kind: OwnershipMarker['kind'], instance: string, nonce = 'n') =>
  markerRecord('ledger', 0, { kind, instance, nonce });
const entry = (bizId: string, commandId: string) =>
  entryRecord('ledger', 0, bizId, withCommandEnded(EMPTY_ENTRY, commandId, 10), undefined);

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

/** An entry written under an acquisition (its nonce in the record's header). */
const entryBy = (acquisition: string, bizId: string, commandId: string) =>
  entryRecord('ledger', 0, bizId, withCommandEnded(EMPTY_ENTRY, commandId, 10), acquisition);
const activeMarker = (instance: string, nonce: string) =>
  markerRecord('ledger', 0, { kind: 'acquired', instance, nonce, active: true });

describe('LedgerReader: records written after another acquisition took over', () => {
  it('when an acquisition took the partition over, then what another wrote after it is skipped and counted, and what it wrote before counts', () => {
    const { reader } = read([
      activeMarker('a', 'a-1'),
      entryBy('a-1', 'b1', 'c1'),
      marker('acquired', 'b', 'b-1'),
      // The previous owner drains after the next one marked it: still its own.
      entryBy('a-1', 'b2', 'c2'),
      marker('released', 'a'),
      activeMarker('b', 'b-1'),
      entryBy('b-1', 'b1', 'c3'),
      // Late writes of the previous owner, after the take-over: an entry, a tombstone, a mark.
      entryBy('a-1', 'b1', 'c-late'),
      entryTombstone('ledger', 0, 'b2', 'a-1'),
      forwardedRecord('ledger', 0, new Map([['cmd.a', 99n]]), 'a-1'),
      marker('acquired', 'me', 'now'),
    ]);
    expect(doneOf(reader.entries.get('b1'))).toEqual(['c3']);
    expect(doneOf(reader.entries.get('b2'))).toEqual(['c2']);
    expect(reader.forwarded.size).toBe(0);
    expect(reader.stale).toBe(3);
  });

  it("when the same instance took the partition over again, then its earlier acquisition's late writes are stale too", () => {
    const { reader } = read([
      activeMarker('a', 'a-1'),
      activeMarker('a', 'a-2'),
      entryBy('a-1', 'b1', 'c-late'),
      entryBy('a-2', 'b1', 'c2'),
    ]);
    expect(doneOf(reader.entries.get('b1'))).toEqual(['c2']);
    expect(reader.stale).toBe(1);
  });

  it('when records carry no acquisition (an earlier version, an operator tool), then they count whoever owns the partition', () => {
    const { reader } = read([activeMarker('a', 'a-1'), entry('b1', 'c1')]);
    expect(doneOf(reader.entries.get('b1'))).toEqual(['c1']);
    expect(reader.stale).toBe(0);
  });
});

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

  it('when it reads its own active marker back, then it tells so once: everything written before it has been read', () => {
    const { facts } = read([
      marker('acquired', 'old'),
      marker('acquired', 'me', 'now'),
      entry('b1', 'c1'),
      activeMarker('me', 'before'),
      activeMarker('me', 'now'),
      activeMarker('me', 'now'),
    ]);
    expect(facts).toEqual([
      { kind: 'own-marker-read', holders: ['old'] },
      { kind: 'own-active-read' },
    ]);
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

  it('when marks of the partition were written more than once (forwarded, command logs), then the last of each stands whole, as compaction leaves it', () => {
    const { reader } = read([
      forwardedRecord(
        'ledger',
        0,
        new Map([
          ['cmd.a', 9n],
          ['cmd.b', 4n],
        ]),
        undefined,
      ),
      logsRecord('ledger', 0, { 'cmd.a': { start: '0', end: '10' } }, undefined),
      forwardedRecord('ledger', 0, new Map([['cmd.b', 6n]]), undefined),
      logsRecord('ledger', 0, { 'cmd.b': { start: '3', end: '7' } }, undefined),
      marker('acquired', 'me', 'now'),
    ]);
    expect(reader.forwarded).toEqual(new Map([['cmd.b', 6n]]));
    expect(reader.logs).toEqual(new Map([['cmd.b', { start: 3n, end: 7n }]]));
  });

  it('skips records it cannot read and counts them', () => {
    const { reader } = read([
      { topic: 'ledger', key: ' ownership x', value: 'garbage' },
      marker('acquired', 'me', 'now'),
    ]);
    expect(reader.unreadable).toBe(1);
  });
});
