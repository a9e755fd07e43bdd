import { describe, expect, it } from 'vitest';
import { Readiness } from './readiness.js';

describe('Readiness', () => {
  it('when causes are held, then each is named with its latest detail until it is released', () => {
    const readiness = new Readiness();
    expect(readiness.reasons()).toEqual([]);
    expect(readiness.hold('kafka-writes', 'the transaction failed')).toBe(true);
    expect(readiness.hold('kafka-writes', 'replacing the producer')).toBe(false);
    expect(readiness.hold('lease', 'lost')).toBe(true);
    expect(readiness.reasons()).toEqual(['kafka-writes: replacing the producer', 'lease: lost']);
    expect(readiness.release('kafka-writes')).toBe(true);
    expect(readiness.release('kafka-writes')).toBe(false);
    expect(readiness.reasons()).toEqual(['lease: lost']);
    expect(readiness.holds('lease')).toBe(true);
    expect(readiness.holds('kafka-writes')).toBe(false);
  });
});
