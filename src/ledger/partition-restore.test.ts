import { describe, expect, it } from 'vitest';
import type { InboundRecord, OutboundRecord } from '../kafka/index.js';
import { EMPTY_ENTRY, withCommandEnded } from './entry.js';
import {
  entryRecord,
  markerRecord,
  markerTombstone,
  type OwnershipMarker,
} from './ledger-record.js';
import { PartitionRestore } from './partition-restore.js';

const self: OwnershipMarker = { kind: 'acquired', instance: 'me', nonce: 'now' };
const marker = (kind: OwnershipMarker['kind'], instance: string, nonce = 'n') =>
  markerRecord('ledger', 0, { kind, instance, nonce });
const entry = (bizId: string, commandId: string) =>
  entryRecord('ledger', 0, bizId, withCommandEnded(EMPTY_ENTRY, commandId, 10));

let offset = 0;
function inbound(record: OutboundRecord): InboundRecord {
  const bytes = (value: string | Buffer | null) =>
    value === null ? null : Buffer.isBuffer(value) ? value : Buffer.from(value);
  return {
    topic: record.topic,
    partition: 0,
    offset: String(offset++),
    key: bytes(record.key),
    value: bytes(record.value),
    headers: {},
    timestamp: '0',
  };
}

function restoreOf(
  records: OutboundRecord[],
  live: ReadonlySet<string> | 'unknown' = new Set(['me']),
) {
  const restore = new PartitionRestore(self, live === 'unknown' ? undefined : live);
  for (const record of records) restore.apply(inbound(record));
  return restore;
}

describe('PartitionRestore', () => {
  it('when it reads its own acquired marker and nobody else holds the partition, then it is done with every entry before it', () => {
    const restore = restoreOf([
      entry('b1', 'c1'),
      entry('b1', 'c2'),
      entry('b2', 'c3'),
      marker('acquired', 'me', 'now'),
    ]);
    expect(restore.state).toBe('done');
    expect(restore.entries.get('b1')?.done).toEqual(['c2']);
    expect([...restore.entries.keys()]).toEqual(['b1', 'b2']);
  });

  it('keeps restoring until its own marker of this acquisition, not an earlier one', () => {
    const restore = restoreOf([marker('acquired', 'me', 'before'), entry('b1', 'c1')]);
    expect(restore.state).toBe('restoring');
  });

  it('when a live previous owner has not released, then it waits for its released marker and takes what that owner wrote before it', () => {
    const restore = restoreOf(
      [
        marker('acquired', 'old'),
        entry('b1', 'c1'),
        marker('acquired', 'me', 'now'),
        entry('b1', 'c2'),
      ],
      new Set(['me', 'old']),
    );
    expect(restore.state).toBe('awaiting-release');
    expect([...restore.waitingFor]).toEqual(['old']);
    restore.apply(inbound(marker('released', 'old')));
    expect(restore.state).toBe('done');
    expect(restore.entries.get('b1')?.done).toEqual(['c2']);
  });

  it('when the previous owner is no longer in the group, then there is nothing to wait for', () => {
    const restore = restoreOf([marker('acquired', 'dead'), marker('acquired', 'me', 'now')]);
    expect(restore.state).toBe('done');
    expect(restore.otherInstances()).toEqual(['dead']);
  });

  it('when the group members are unknown, then every holder is waited for', () => {
    const restore = restoreOf(
      [marker('acquired', 'maybe'), marker('acquired', 'me', 'now')],
      'unknown',
    );
    expect(restore.state).toBe('awaiting-release');
  });

  it('when owners released or were tombstoned, then they are not waited for', () => {
    const restore = restoreOf(
      [
        marker('acquired', 'a'),
        marker('released', 'a'),
        marker('acquired', 'b'),
        markerTombstone('ledger', 0, 'b'),
        marker('acquired', 'me', 'now'),
      ],
      new Set(['me', 'a', 'b']),
    );
    expect(restore.state).toBe('done');
    expect(restore.otherInstances()).toEqual(['a']);
  });

  it('when the wait is given up, then it is done', () => {
    const restore = restoreOf(
      [marker('acquired', 'old'), marker('acquired', 'me', 'now')],
      new Set(['old']),
    );
    restore.stopWaiting();
    expect(restore.state).toBe('done');
  });

  it('skips records it cannot read and counts them', () => {
    const restore = restoreOf([
      { topic: 'ledger', key: 'b1', value: 'garbage' },
      marker('acquired', 'me', 'now'),
    ]);
    expect(restore.unreadable).toBe(1);
    expect(restore.state).toBe('done');
  });
});
