import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
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
});
