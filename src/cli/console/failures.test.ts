import { describe, expect, it } from 'vitest';
import type { BridgeEvent } from '../../sdk/index.js';
import { FailureTally, SERIES_MAX } from './failures.js';

const FROM = Date.parse('2026-11-28T00:00:00Z');
const HOUR = 3_600_000;

function failure(
  at: number,
  code: string,
  options: { type?: string; bizId?: string; commandId?: string; platformCode?: string } = {},
): BridgeEvent {
  return {
    type: 'signingbridge.command.failed',
    time: new Date(at).toISOString(),
    subject: options.bizId ?? 'b',
    commandId: options.commandId ?? `c-${at}`,
    data: {
      commandType: options.type ?? 'approve',
      step: 'approve',
      error: {
        code,
        message: 'm',
        ...(options.platformCode ? { platformCode: options.platformCode } : {}),
      },
    },
  } as unknown as BridgeEvent;
}

describe('the failures of a window', () => {
  it("when failures come, then they are counted per slice of time by code (the platform's when it answered) and by type", () => {
    const tally = new FailureTally(FROM, FROM + 4 * HOUR, 4);
    tally.addFailure(failure(FROM + 10, 'SB_ERR_PLATFORM_REJECTED', { platformCode: '1112' }));
    tally.addFailure(failure(FROM + HOUR + 10, 'SB_ERR_COMMAND_INVALID', { type: 'remind' }));
    tally.addFailure(failure(FROM + HOUR + 20, 'SB_ERR_COMMAND_INVALID'));
    tally.addFailure(failure(FROM - 1, 'SB_ERR_COMMAND_INVALID'));
    tally.addFailure(failure(FROM + 4 * HOUR, 'SB_ERR_COMMAND_INVALID'));
    expect(tally.total).toBe(3);
    expect(tally.chart('code').series).toEqual([
      { name: 'SB_ERR_COMMAND_INVALID', counts: [0, 2, 0, 0] },
      { name: 'platform 1112', counts: [1, 0, 0, 0] },
    ]);
    expect(tally.chart('type').series).toEqual([
      { name: 'approve', counts: [1, 1, 0, 0] },
      { name: 'remind', counts: [0, 1, 0, 0] },
    ]);
  });

  it('when there are more codes than colours, then the smallest add up to one series', () => {
    const tally = new FailureTally(FROM, FROM + HOUR, 1);
    for (let code = 0; code < SERIES_MAX + 3; code++) {
      for (let n = 0; n <= code; n++)
        tally.addFailure(failure(FROM + n, `SB_ERR_${code}`, { commandId: `c-${code}-${n}` }));
    }
    const series = tally.chart('code').series;
    expect(series).toHaveLength(SERIES_MAX + 1);
    expect(series.at(-1)).toEqual({ name: '3 more', counts: [1 + 2 + 3] });
  });

  it('when a command ended "outcome unknown", then it is listed to settle until a later ending of it follows', () => {
    const tally = new FailureTally(FROM, FROM + HOUR, 6);
    tally.addFailure(
      failure(FROM + 1_000, 'SB_ERR_COMMAND_OUTCOME_UNKNOWN', { bizId: 'b1', commandId: 'x' }),
    );
    tally.addFailure(
      failure(FROM + 2_000, 'SB_ERR_COMMAND_OUTCOME_UNKNOWN', { bizId: 'b2', commandId: 'x' }),
    );
    expect(tally.awaits('b1', 'x')).toBe(true);
    expect(tally.awaits('b3', 'x')).toBe(false);
    tally.addEnding(
      'b1',
      'x',
      'signingbridge.approval.recorded',
      new Date(FROM + 5_000).toISOString(),
    );
    expect(tally.unknownOutcomes().map((u) => [u.bizId, u.settledBy?.type])).toEqual([
      ['b2', undefined],
      ['b1', 'signingbridge.approval.recorded'],
    ]);
  });

  it('when the platform later refuses the same command outright, then that settles it too', () => {
    const tally = new FailureTally(FROM, FROM + HOUR, 6);
    tally.addFailure(failure(FROM + 1_000, 'SB_ERR_COMMAND_OUTCOME_UNKNOWN', { commandId: 'x' }));
    tally.addFailure(
      failure(FROM + 9_000, 'SB_ERR_PLATFORM_REJECTED', { commandId: 'x', platformCode: '1101' }),
    );
    expect(tally.unknownOutcomes()[0]?.settledBy?.type).toBe('signingbridge.command.failed');
  });
});
