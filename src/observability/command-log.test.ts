import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PlatformRejected } from '../errors.js';
import { commandLog } from './command-log.js';
import { createLogger } from './logger.js';

function capture(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const log = createLogger({ level, headerPrefix: 'x-svc-open-' }, stream);
  return { lines, log };
}

const end = {
  type: 'approve',
  outcome: 'failed',
  durationMs: 1234.56,
  attempts: 2,
  commandId: 'c-1',
  bizId: 'b-1',
  record: { topic: 'signing-bridge.commands.approve', partition: 3, offset: '42' },
  errorCode: 'SB_ERR_PLATFORM_REJECTED',
  platformCode: '1101',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
} as const;

describe('commandLog', () => {
  it('when a command ends, then one info line says its ids, type, outcome, codes, attempts, duration, record and trace', () => {
    const { lines, log } = capture();
    commandLog(log).commandFinished(end);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'command ended',
      commandId: 'c-1',
      bizId: 'b-1',
      type: 'approve',
      outcome: 'failed',
      platformCode: '1101',
      errorCode: 'SB_ERR_PLATFORM_REJECTED',
      attempts: 2,
      durationMs: 1235,
      topic: 'signing-bridge.commands.approve',
      partition: 3,
      offset: '42',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    expect(lines[0]).not.toHaveProperty('class');
  });

  it('when the bridge has priority classes, then the line says the class of the type', () => {
    const { lines, log } = capture();
    commandLog(log, (type) => (type === 'remind' ? 'bulk' : 'interactive')).commandFinished(end);
    expect(lines[0]).toMatchObject({ class: 'interactive' });
  });

  it('when a platform call is reported at debug, then a line says operation, status, code, duration and attempt, and nothing of the bodies', () => {
    const { lines, log } = capture('debug');
    const error = new PlatformRejected('approveContract rejected: 1101 INVALID CONTRACT STATUS', {
      details: {
        operation: 'approveContract',
        bizId: 'b-1',
        platformCode: '1101',
        rawCode: '00001101',
        platformName: 'INVALID CONTRACT STATUS',
        platformMessage: 'contract of 13912345678 is not in DRAFT',
        httpStatus: 200,
        family: 'business',
      },
    });
    const report = {
      operation: 'approveContract',
      bizId: 'b-1',
      attempt: 1,
      durationMs: 12.4,
      tokenWaitMs: 0,
    };
    commandLog(log).onCall({ ...report, httpStatus: 200, error });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 20,
        msg: 'platform call',
        operation: 'approveContract',
        attempt: 1,
        outcome: 'business',
        httpStatus: 200,
        platformCode: '1101',
        errorCode: 'SB_ERR_PLATFORM_REJECTED',
        durationMs: 12,
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('DRAFT');
  });

  it('when the level is info, then platform calls write nothing', () => {
    const { lines, log } = capture('info');
    commandLog(log).onCall({
      operation: 'createDraft',
      attempt: 0,
      durationMs: 1,
      tokenWaitMs: 0,
      httpStatus: 200,
    });
    expect(lines).toEqual([]);
  });
});
