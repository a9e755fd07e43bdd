/**
 * The hot-key bound over random key distributions (docs/design.md, "Hot keys"): a partition's
 * log of bizIds is fetched in order, each key's lane bounded (KeyLanes) and records past it left
 * in Kafka and read again (PartitionOffsets), commands finishing one at a time per key in any
 * order across keys; the fetch also goes back to the last commit at random (a rebalance that kept
 * the partition). Checked at every step: a key holds at most its bound; each key's commands are
 * taken once each, in offset order, without a gap; the commit never passes a command not taken or
 * not finished; a key with room and records in the fetched range is never made to wait for a
 * busy key's; and in the end every record was taken and the commit is past the log.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartitionOffsets } from '../partitions/offsets.js';
import { KeyLanes, type LaneLoad } from './key-lanes.js';

const LANE = 'remind';

interface Model {
  readonly log: readonly string[];
  readonly offsets: PartitionOffsets;
  readonly lanes: KeyLanes;
  readonly bound: { items: number; size: number };
  position: number;
  committed: number;
  /** Per key, its commands in hand in offset order (they run one at a time, the first first). */
  readonly inHand: Map<string, Array<{ offset: number; load: LaneLoad }>>;
  readonly taken: Set<number>;
  /** Per key, the next of its records in the log to be taken. */
  readonly nextOfKey: Map<string, number>;
  readonly relieved: string[];
}

function model(log: string[], items: number): Model {
  const relieved: string[] = [];
  return {
    log,
    offsets: new PartitionOffsets(),
    lanes: new KeyLanes((key) => relieved.push(key)),
    bound: { items, size: Number.POSITIVE_INFINITY },
    position: 0,
    committed: 0,
    inHand: new Map(),
    taken: new Set(),
    nextOfKey: new Map(),
    relieved,
  };
}

function firstOfKeyFrom(log: readonly string[], key: string, from: number): number {
  const index = log.indexOf(key, from);
  return index < 0 ? log.length : index;
}

/** The fetch brings the record at the position, as Intake receives it. */
function fetchOne(m: Model): void {
  const offset = m.position;
  const key = m.log[offset] as string;
  const fate = m.offsets.receive(String(offset), key, () => m.lanes.hasRoom(key, LANE, m.bound));
  m.position++;
  if (fate === 'take') {
    expect(m.taken.has(offset), `offset ${offset} taken twice`).toBe(false);
    const expected = m.nextOfKey.get(key) ?? firstOfKeyFrom(m.log, key, 0);
    expect(offset, `key ${key} taken out of order`).toBe(expected);
    m.nextOfKey.set(key, firstOfKeyFrom(m.log, key, offset + 1));
    m.taken.add(offset);
    const load = m.lanes.added(key, LANE, 0, m.bound);
    const queue = m.inHand.get(key) ?? [];
    queue.push({ offset, load });
    m.inHand.set(key, queue);
    expect(queue.length).toBeLessThanOrEqual(m.bound.items);
  }
  const ahead = m.offsets.skipAhead();
  if (ahead !== undefined) m.position = Number(ahead);
  m.offsets.takeReleased();
}

/** The first command of one key in hand finishes; relieved keys make the fetch go back. */
function finishOne(m: Model, pick: number): void {
  const keys = [...m.inHand.keys()];
  const key = keys[pick % keys.length] as string;
  const queue = m.inHand.get(key) ?? [];
  const done = queue.shift();
  if (!done) return;
  if (queue.length === 0) m.inHand.delete(key);
  expect(m.offsets.finish(String(done.offset))).toBe(true);
  m.lanes.removed(done.load, 0);
  for (const relievedKey of m.relieved.splice(0)) {
    const back = m.offsets.rewindFor(relievedKey);
    if (back !== undefined) m.position = Number(back);
  }
}

function commit(m: Model): void {
  const offset = m.offsets.committable();
  if (offset === undefined) return;
  const value = Number(offset);
  // Everything below the commit was taken and finished.
  for (let i = m.committed; i < value; i++) {
    expect(m.taken.has(i), `commit ${value} passes ${i}, never taken`).toBe(true);
  }
  for (const queue of m.inHand.values()) {
    for (const { offset: unfinished } of queue) expect(unfinished).toBeGreaterThanOrEqual(value);
  }
  m.offsets.markCommitted(offset);
  m.committed = value;
}

const step = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ kind: 'fetch' as const }) },
  { weight: 4, arbitrary: fc.nat().map((pick) => ({ kind: 'finish' as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rebalance' as const }) },
);

/** Mostly one hot key, a few others. */
const keyLog = fc
  .tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 100 }))
  .chain(([others, hotPercent]) =>
    fc.array(
      fc
        .integer({ min: 0, max: 99 })
        .map((roll) => (roll < hotPercent ? 'hot' : `k${roll % others}`)),
      { minLength: 1, maxLength: 120 },
    ),
  );

describe('hot keys: the lane bound and the records left in Kafka, over random key distributions', () => {
  it('keeps each key within its bound, in order, taken once, and the commit below anything unfinished; in the end all is taken', () => {
    fc.assert(
      fc.property(
        keyLog,
        fc.integer({ min: 1, max: 6 }),
        fc.array(step, { maxLength: 400 }),
        (log, items, steps) => {
          const m = model(log, items);
          for (const s of steps) {
            if (s.kind === 'fetch' && m.position < log.length) fetchOne(m);
            else if (s.kind === 'finish' && m.inHand.size > 0) finishOne(m, s.pick);
            else if (s.kind === 'commit') commit(m);
            else if (s.kind === 'rebalance') {
              commit(m);
              m.position = m.committed;
            }
          }
          // Drain: fetch what remains, finish what is in hand.
          for (let guard = 0; guard < 100_000; guard++) {
            if (m.position < log.length) fetchOne(m);
            else if (m.inHand.size > 0) finishOne(m, guard);
            else break;
          }
          commit(m);
          expect(m.taken.size).toBe(log.length);
          expect(m.committed).toBe(log.length);
          expect(m.offsets.heldKeys).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a key below its bound is taken as the fetch reaches it, whatever a busy key holds', () => {
    fc.assert(
      fc.property(keyLog, fc.integer({ min: 1, max: 4 }), (log, items) => {
        const m = model(log, items);
        // Nothing finishes: the hot key stays at its bound the whole time.
        while (m.position < log.length) fetchOne(m);
        for (const key of new Set(log)) {
          const ofKey = log.flatMap((k, offset) => (k === key ? [offset] : []));
          const expected = ofKey.slice(0, items);
          const got = [...m.taken].filter((offset) => log[offset] === key).sort((a, b) => a - b);
          expect(got).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
