import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OperatorInputInvalid } from '../../errors.js';
import {
  bizIdOf,
  commandIdOf,
  letterIdsOf,
  offsetOf,
  reasonOf,
  timeOf,
  windowOf,
} from './inputs.js';

const fields = (query: string) => new URLSearchParams(query);

describe('what a person types into the console', () => {
  it('when a bizId is as commands carry it, then it is taken as it is; absent or empty, it is not asked', () => {
    expect(bizIdOf(fields('bizId=order-4711'))).toBe('order-4711');
    expect(bizIdOf(fields('bizId=%E8%AE%A2%E5%8D%95%2F1%40x'))).toBe('订单/1@x');
    expect(bizIdOf(fields(''))).toBeUndefined();
    expect(bizIdOf(fields('bizId='))).toBeUndefined();
  });

  it('whatever the text, a field is either taken within its rule or refused naming the field: nothing else is thrown', () => {
    const readers = [
      bizIdOf,
      commandIdOf,
      windowOf,
      reasonOf,
      (f: URLSearchParams) => offsetOf(f, 'page'),
      (f: URLSearchParams) => timeOf(f, 'since'),
      letterIdsOf,
    ];
    fc.assert(
      fc.property(
        fc.constantFrom('bizId', 'commandId', 'window', 'reason', 'page', 'since', 'letter'),
        fc.string({ unit: 'binary', maxLength: 400 }),
        (name, value) => {
          const asked = new URLSearchParams([[name, value]]);
          for (const read of readers) {
            try {
              const taken = read(asked);
              if (name === 'bizId' && read === bizIdOf && taken !== undefined) {
                expect((taken as string).length).toBeLessThanOrEqual(200);
              }
            } catch (error) {
              expect(error).toBeInstanceOf(OperatorInputInvalid);
              expect((error as OperatorInputInvalid).details.where).toBe(name);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('when dead letters are named, then each is a partition and an offset, once, a thousand at most', () => {
    expect(letterIdsOf(fields('letter=3/42&letter=0/7&letter=3/42'))).toEqual([
      { partition: 3, offset: '42' },
      { partition: 0, offset: '7' },
    ]);
    expect(() => letterIdsOf(fields('letter=3:42'))).toThrow('each as <partition>/<offset>');
    const many = Array.from({ length: 1_001 }, (_, i) => `letter=0/${i}`).join('&');
    expect(() => letterIdsOf(fields(many))).toThrow('at most 1000 at once');
  });

  it('when a time is given, then as the CLI takes it: an ISO date or time, or a duration back from now', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(timeOf(fields('since=2h'), 'since', now)).toBe(now - 7_200_000);
    expect(timeOf(fields('since=2026-11-27'), 'since', now)).toBe(Date.parse('2026-11-27'));
    expect(() => timeOf(fields('since=yesterday'), 'since', now)).toThrow(/^since: an ISO 8601/);
  });
});
