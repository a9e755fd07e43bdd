import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { PartitionPosition } from '../kafka/index.js';
import { LagReport } from './lag-report.js';
import type { PartitionLag } from './settings.js';

const position = (partition: number, committed?: string): PartitionPosition => ({
  topic: 'commands.remind',
  partition,
  logStart: '10',
  highWatermark: '100',
  committed,
});

function report(owned: number[], inHand: Map<number, bigint>) {
  const reports: Array<readonly PartitionLag[]> = [];
  let told: () => void = () => {};
  const lag = new LagReport({
    consumer: { positions: async () => [position(0, '40'), position(1), position(2, '100')] },
    partitions: { assigned: owned, nextInHand: (_topic, partition) => inHand.get(partition) },
    commandTopics: ['commands.remind'],
    observer: {
      partitionLags: (lags) => {
        reports.push(lags);
        told();
      },
    },
    log: pino({ level: 'silent' }),
  });
  const next = () =>
    new Promise<readonly PartitionLag[]>((resolve) => {
      told = () => resolve(reports.at(-1) ?? []);
    });
  return { lag, reports, next };
}

describe('LagReport', () => {
  it('when started, then each owned partition is reported with its committed offset (the log start without one) and the next offset in hand', async () => {
    const { lag, next } = report([0, 1], new Map([[0, 95n]]));
    const reported = next();
    lag.start();
    expect(await reported).toEqual([
      {
        topic: 'commands.remind',
        partition: 0,
        highWatermark: 100n,
        committed: 40n,
        nextInHand: 95n,
      },
      {
        topic: 'commands.remind',
        partition: 1,
        highWatermark: 100n,
        committed: 10n,
        nextInHand: 10n,
      },
    ]);
    lag.stop();
  });

  it('when stopped, then an empty report says no partition is owned any more', async () => {
    const { lag, reports, next } = report([2], new Map());
    const first = next();
    lag.start();
    await first;
    lag.stop();
    expect(reports.at(-1)).toEqual([]);
  });
});
