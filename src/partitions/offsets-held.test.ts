/**
 * Records left in Kafka by a key at its bound, and read again by offset (docs/design.md, "Hot
 * keys"): the fates of records, where the fetch goes back to, and what may be committed.
 */
import { describe, expect, it } from 'vitest';
import { PartitionOffsets } from './offsets.js';

const room = () => true;
const full = () => false;

/** Receives `keys` at offsets `from`, `from + 1`…; `hasRoom(key)` decides when asked. */
function receiveAll(
  offsets: PartitionOffsets,
  keys: string[],
  hasRoom: (key: string) => boolean,
  from = 0,
): string[] {
  return keys.map((key, i) => offsets.receive(String(from + i), key, () => hasRoom(key)));
}

describe('PartitionOffsets, keys held back', () => {
  it('when a key has no room, then its first record is held first, its later ones held, other keys taken', () => {
    const offsets = new PartitionOffsets();
    const fates = receiveAll(offsets, ['h', 'h', 'a', 'h', 'b'], (key) => key !== 'h');
    expect(fates).toEqual(['hold-first', 'hold', 'take', 'hold', 'take']);
    expect(offsets.heldKeys).toBe(1);
    expect(offsets.inFlight).toBe(2);
  });

  it('when keys are held back, then their names are there to look at, as many as asked at most', () => {
    const offsets = new PartitionOffsets();
    receiveAll(offsets, ['h', 'g', 'a', 'f'], (key) => key === 'a');
    expect(offsets.heldKeyNames(10)).toEqual(['h', 'g', 'f']);
    expect(offsets.heldKeyNames(2)).toEqual(['h', 'g']);
    expect(offsets.heldKeyNames(0)).toEqual([]);
  });

  it('when a held key has room again later, then its later records are still held: order is kept', () => {
    const offsets = new PartitionOffsets();
    let hRoom = false;
    expect(offsets.receive('0', 'h', () => hRoom)).toBe('hold-first');
    hRoom = true;
    expect(offsets.receive('1', 'h', () => hRoom)).toBe('hold');
  });

  it('never commits at or past a record held back, even when everything taken is finished', () => {
    const offsets = new PartitionOffsets();
    receiveAll(offsets, ['a', 'h', 'b', 'h'], (key) => key !== 'h');
    offsets.markCommitted('0');
    offsets.finish('0');
    offsets.finish('2');
    expect(offsets.committable()).toBe('1');
  });

  it('when the held key has room and the fetch passed its first record, then the fetch goes back there', () => {
    const offsets = new PartitionOffsets();
    receiveAll(offsets, ['a', 'h', 'b', 'h', 'c'], (key) => key !== 'h');
    expect(offsets.rewindFor('h')).toBe('1');
    // Not twice: the fetch is there now.
    expect(offsets.rewindFor('h')).toBeUndefined();
    expect(offsets.rewindFor('a')).toBeUndefined();
  });

  it('when read again, then records seen before are skipped and the held key is taken from its first left, then released once the fetch passes the highest received', () => {
    const offsets = new PartitionOffsets();
    receiveAll(offsets, ['a', 'h', 'b', 'h', 'c'], (key) => key !== 'h');
    offsets.rewindFor('h');
    expect(receiveAll(offsets, ['h', 'b', 'h', 'c'], room, 1)).toEqual([
      'take',
      'skip',
      'take',
      'skip',
    ]);
    expect(offsets.takeReleased()).toEqual(['h']);
    expect(offsets.takeReleased()).toEqual([]);
    expect(offsets.heldKeys).toBe(0);
    expect(offsets.inFlight).toBe(5);
  });

  it('when a key read again runs out of room, then it is held again from that record, and the commit stays below it', () => {
    const offsets = new PartitionOffsets();
    receiveAll(offsets, ['h', 'h', 'h', 'a'], (key) => key !== 'h');
    offsets.rewindFor('h');
    let left = 1;
    const hasRoom = () => left-- > 0;
    expect(receiveAll(offsets, ['h', 'h', 'h', 'a'], hasRoom)).toEqual([
      'take',
      'hold',
      // Behind h's first record left: it comes again from there.
      'skip',
      'skip',
    ]);
    offsets.finish('0');
    offsets.finish('3');
    expect(offsets.committable()).toBe('1');
    expect(offsets.rewindFor('h')).toBe('1');
  });

  it('while a key is read again, then the commit stays below where the fetch stands', () => {
    const offsets = new PartitionOffsets();
    receiveAll(offsets, ['h', 'a', 'h', 'b'], (key) => key !== 'h');
    offsets.markCommitted('0');
    for (const offset of ['1', '3']) offsets.finish(offset);
    offsets.rewindFor('h');
    expect(offsets.receive('0', 'h', room)).toBe('take');
    offsets.finish('0');
    // Offset 2, h's, is not read yet.
    expect(offsets.committable()).toBe('1');
  });

  it('when nothing between the fetch and the highest received is to take, then the fetch skips ahead', () => {
    const offsets = new PartitionOffsets();
    receiveAll(offsets, ['h', 'a', 'g', 'b', 'c'], (key) => key !== 'h' && key !== 'g');
    offsets.rewindFor('h');
    // h has no room again when its first record comes back: g's first left is ahead, read on.
    expect(offsets.receive('0', 'h', full)).toBe('hold');
    expect(offsets.skipAhead()).toBeUndefined();
    expect(offsets.receive('1', 'a', room)).toBe('skip');
    expect(offsets.receive('2', 'g', full)).toBe('hold');
    expect(offsets.skipAhead()).toBe('5');
  });

  it('when the fetch goes back to the last commit (a rebalance kept the partition), then the held key is taken at its first left and nothing else twice', () => {
    const offsets = new PartitionOffsets();
    let hRoom = false;
    receiveAll(offsets, ['a', 'h', 'a', 'h'], (key) => key !== 'h' || hRoom);
    hRoom = true;
    const fates = receiveAll(offsets, ['a', 'h', 'a', 'h'], () => hRoom);
    expect(fates).toEqual(['skip', 'take', 'skip', 'take']);
  });
});
