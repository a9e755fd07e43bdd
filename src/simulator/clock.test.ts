import { describe, expect, it } from 'vitest';
import { createClock } from './clock.js';

describe('createClock', () => {
  it('formats the spec timestamp in the configured offset', () => {
    const at = Date.parse('2030-06-30T23:30:05.900Z');
    expect(createClock(() => at).timestamp()).toBe('2030-06-30 23:30:05');
    expect(createClock(() => at, 480).timestamp()).toBe('2030-07-01 07:30:05');
  });

  it('stays right across seconds and for instants other than now', () => {
    let now = Date.parse('2030-01-01T00:00:00.999Z');
    const clock = createClock(() => now);
    expect(clock.timestamp()).toBe('2030-01-01 00:00:00');
    now += 1;
    expect(clock.timestamp()).toBe('2030-01-01 00:00:01');
    expect(clock.timestamp(Date.parse('2031-02-03T04:05:06Z'))).toBe('2031-02-03 04:05:06');
    expect(clock.timestamp()).toBe('2030-01-01 00:00:01');
  });
});
