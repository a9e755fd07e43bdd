import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BridgeEvent } from '../../sdk/index.js';
import { printEvent } from './event-line.js';
import { Output } from './operator.js';

let stdout = '';
beforeEach(() => {
  stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

const failed = {
  type: 'signingbridge.command.failed',
  id: 'c-1/failed',
  source: 's',
  subject: 'order-1',
  time: '2026-05-01T10:00:00.000Z',
  commandId: 'c-1',
  terminal: true,
  data: {
    commandId: 'c-1',
    bizId: 'order-1',
    commandType: 'approve',
    step: 'approve',
    error: {
      code: 'SB_ERR_PLATFORM_REJECTED',
      name: 'PlatformRejected',
      message: 'm',
      retryable: false,
      platformCode: '1101',
      platformName: 'INVALID CONTRACT STATUS',
    },
  },
  record: { topic: 't.events', partition: 3, offset: '17', timestamp: '1', key: 'order-1' },
} as BridgeEvent;

describe('printEvent', () => {
  it('when on a terminal, then one line: time, type, bizId, commandId, what happened, (end)', () => {
    printEvent(new Output(false), failed);
    expect(stdout).toMatch(
      /^2026-05-01T10:00:00\.000Z {2}signingbridge\.command\.failed +order-1 +c-1 +approve, step approve: platform 1101 INVALID CONTRACT STATUS {2}\(end\)\n$/,
    );
  });

  it('when --json, then one object with the attributes, where it is and its data', () => {
    printEvent(new Output(true), failed, { kind: 'event' });
    expect(JSON.parse(stdout)).toEqual({
      kind: 'event',
      time: '2026-05-01T10:00:00.000Z',
      type: 'signingbridge.command.failed',
      bizId: 'order-1',
      commandId: 'c-1',
      id: 'c-1/failed',
      terminal: true,
      topic: 't.events',
      partition: 3,
      offset: '17',
      data: failed.data,
    });
  });
});
