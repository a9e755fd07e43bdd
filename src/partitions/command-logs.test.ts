import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currentLogs, type LogExtent, logsValue, renewedTopics, seenLogs } from './command-logs.js';

const extent = (start: number, end: number): LogExtent => ({
  start: BigInt(start),
  end: BigInt(end),
});
const logs = (entries: Record<string, [number, number]>) =>
  new Map(Object.entries(entries).map(([topic, [start, end]]) => [topic, extent(start, end)]));

describe('the command logs a partition has seen', () => {
  it('when the ledger names offsets past its logs record (in hand, forwarded), then the end seen is past them', () => {
    const seen = seenLogs(
      logs({ a: [5, 10] }),
      new Map([
        ['a', 19n],
        ['b', 3n],
      ]),
      new Map([['a', 12n]]),
    );
    expect(seen).toEqual(logs({ a: [5, 20], b: [0, 4] }));
  });

  it('when a log starts and ends where it was seen or later, then it is the same log', () => {
    const seen = logs({ a: [5, 10], b: [0, 4] });
    expect(renewedTopics(seen, logs({ a: [5, 10], b: [2, 40] }))).toEqual([]);
  });

  it('when a log ends before the end seen (created again, shorter), or starts before the start seen (created again, its old start moved by retention), then it is another log', () => {
    const seen = logs({ a: [0, 10], b: [500, 900], c: [0, 3] });
    expect(renewedTopics(seen, logs({ a: [0, 2], b: [0, 1200], c: [0, 3] }))).toEqual(['a', 'b']);
  });

  it('when a log created again has grown past the old end and the old start was 0, then it cannot be told apart', () => {
    expect(renewedTopics(logs({ a: [0, 10] }), logs({ a: [0, 11] }))).toEqual([]);
  });

  it('when a log was not found now, then nothing is said of it and what was seen is kept', () => {
    const seen = logs({ a: [0, 10] });
    expect(renewedTopics(seen, new Map())).toEqual([]);
    expect(currentLogs(seen, new Map(), [])).toEqual(seen);
  });

  it('when the logs are taken over, then each is remembered as found, its end no lower than seen of the same log, and a new log as found', () => {
    const seen = logs({ a: [0, 10], b: [0, 8] });
    const found = logs({ a: [2, 7], b: [0, 3], c: [0, 1] });
    expect(currentLogs(seen, found, ['b'])).toEqual(logs({ a: [2, 10], b: [0, 3], c: [0, 1] }));
  });

  it('keeps its offsets as decimal text, as the ledger writes them', () => {
    const big = { start: 2n ** 60n, end: 2n ** 60n + 1n };
    expect(logsValue(new Map([['a', big]]))).toEqual({
      a: { start: '1152921504606846976', end: '1152921504606846977' },
    });
  });

  it('for any history of a log and whether it was created again, a log created again before it reached the end seen, or after the start had moved, is told apart, and the same log never is', () => {
    let told = 0;
    fc.assert(
      fc.property(
        fc.nat({ max: 50 }),
        fc.nat({ max: 50 }),
        fc.nat({ max: 50 }),
        fc.nat({ max: 100 }),
        fc.boolean(),
        (start, seenLength, grown, newLength, createdAgain) => {
          const seen = logs({ t: [start, start + seenLength] });
          const now = createdAgain
            ? logs({ t: [0, newLength] })
            : logs({ t: [start, start + seenLength + grown] });
          const renewed = renewedTopics(seen, now).includes('t');
          if (!createdAgain) expect(renewed).toBe(false);
          else if (start > 0 || newLength < seenLength) {
            told++;
            expect(renewed).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(told).toBeGreaterThan(50);
  });
});
