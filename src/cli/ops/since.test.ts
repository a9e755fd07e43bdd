import { describe, expect, it } from 'vitest';
import { OperatorInputInvalid } from '../../errors.js';
import { parseSince } from './since.js';

const now = Date.parse('2026-05-01T12:00:00.000Z');

describe('parseSince', () => {
  it.each([
    ['30s', '2026-05-01T11:59:30.000Z'],
    ['15m', '2026-05-01T11:45:00.000Z'],
    ['2h', '2026-05-01T10:00:00.000Z'],
    ['7d', '2026-04-24T12:00:00.000Z'],
    ['2026-04-30', '2026-04-30T00:00:00.000Z'],
    ['2026-04-30T08:15:00Z', '2026-04-30T08:15:00.000Z'],
    ['2026-04-30T08:15:00.250+02:00', '2026-04-30T06:15:00.250Z'],
  ])('when given %s, then it means %s', (text, iso) => {
    expect(parseSince(text, now).toISOString()).toBe(iso);
  });

  it.each(['yesterday', '15', '1w', '2026-13-01', '', '2026-04-30T25:00:00Z'])(
    'when given "%s", then it is refused naming --since',
    (text) => {
      expect(() => parseSince(text, now)).toThrow(OperatorInputInvalid);
      expect(() => parseSince(text, now)).toThrow(/^--since: /);
    },
  );
});
