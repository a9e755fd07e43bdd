import type { Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HotKeyLog } from './hot-key-log.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const log = {
    warn: (fields: Record<string, unknown>) => lines.push({ level: 'warn', ...fields }),
    info: (fields: Record<string, unknown>) => lines.push({ level: 'info', ...fields }),
  } as unknown as Logger;
  return { log, lines };
}

describe('HotKeyLog', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes one line of each kind per interval, and counts the ones left out in the next', () => {
    const { log, lines } = capture();
    let now = 0;
    const hot = new HotKeyLog(log, 10_000, () => now);
    const held = (bizId: string) =>
      hot.heldBack({ type: 'remind', bizId, partition: 0, offset: '1' });
    held('a');
    held('b');
    held('c');
    hot.released({ type: 'remind', bizId: 'a', partition: 0 });
    now = 10_000;
    held('d');
    expect(lines).toEqual([
      expect.objectContaining({ level: 'warn', bizId: 'a', alsoHeldBack: 0 }),
      expect.objectContaining({ level: 'info', bizId: 'a', alsoReleased: 0 }),
      expect.objectContaining({ level: 'warn', bizId: 'd', alsoHeldBack: 2 }),
    ]);
  });

  it('when the wall clock steps back or forward, then a line is due one interval after the last on the monotonic clock', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const { log, lines } = capture();
    const hot = new HotKeyLog(log, 10_000);
    const held = (bizId: string) =>
      hot.heldBack({ type: 'remind', bizId, partition: 0, offset: '1' });
    held('a');
    vi.setSystemTime(Date.now() + 3_600_000);
    held('b');
    vi.setSystemTime(Date.now() - 7_200_000);
    vi.advanceTimersByTime(10_000);
    held('c');
    expect(lines.map((line) => [line.bizId, line.alsoHeldBack])).toEqual([
      ['a', 0],
      ['c', 1],
    ]);
  });
});
