import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';
import { InstanceStatus, instanceStatus } from './status.js';

const BRIDGE = {
  instance: 'instance-1',
  partitions: [3, 1],
  heldBack: [{ type: 'remind' as const, partition: 1, bizId: 'order-9' }],
};

function source(
  metrics = createMetrics({
    ready: () => true,
    kafkaConnected: () => false,
    leaseHeld: () => true,
  }),
) {
  return {
    registry: metrics.registry,
    bridge: () => BRIDGE,
    notReadyBecause: () => ['lease: lost'],
    budgetRps: 20,
    startedAt: new Date('2026-11-28T10:00:00Z'),
  };
}

describe('/status of one instance', () => {
  it('when nothing happened yet, then it says who it is, what it holds, and every figure at rest', async () => {
    const status = await instanceStatus(source());
    expect(InstanceStatus.parse(status)).toEqual(status);
    expect(status).toMatchObject({
      instance: 'instance-1',
      startedAt: '2026-11-28T10:00:00.000Z',
      ready: true,
      notReady: ['lease: lost'],
      kafkaConnected: false,
      partitions: [1, 3],
      commands: { inFlight: 0, pending: 0 },
      paused: [],
      breaker: { state: 'closed', cause: null },
      budget: { groupRps: 20, throttled: 0 },
      heldBack: BRIDGE.heldBack,
      lag: [],
      totals: { deadLetters: 0, outcomesUnknown: 0 },
    });
  });

  it('when the bridge reports load, an open breaker, lag and hot keys, then the status says so from the same metrics', async () => {
    const metrics = createMetrics({
      ready: () => false,
      kafkaConnected: () => true,
      leaseHeld: () => true,
    });
    const { observer, budget } = metrics;
    observer.load?.(7, 12, [
      { name: 'interactive', running: 5, pending: 9 },
      { name: 'bulk', running: 2, pending: 3 },
    ]);
    observer.inFlightLimit?.(64);
    observer.breakerStateChanged?.('open', 'not-the-platform');
    observer.consumptionPaused?.(true, 'breaker');
    observer.hotKeys?.([{ type: 'remind', longest: 4, heldBack: 2 }]);
    observer.partitionLags?.([
      {
        topic: 'p.commands.remind',
        partition: 1,
        highWatermark: 50n,
        committed: 20n,
        nextInHand: 45n,
      },
    ]);
    observer.commandFinished?.({
      type: 'approve',
      outcome: 'failed',
      durationMs: 5,
      errorCode: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN',
    } as never);
    budget.share(10);
    budget.rateInForce(5);
    const status = await instanceStatus(source(metrics));
    expect(InstanceStatus.parse(status)).toEqual(status);
    expect(status).toMatchObject({
      ready: false,
      kafkaConnected: true,
      commands: { inFlight: 7, inFlightLimit: 64, pending: 12 },
      paused: ['breaker'],
      breaker: { state: 'open', cause: 'not-the-platform' },
      budget: { groupRps: 20, shareRps: 10, rateInForceRps: 5 },
      classes: [
        { name: 'interactive', running: 5, backlog: 9 },
        { name: 'bulk', running: 2, backlog: 3 },
      ],
      hotKeys: [{ type: 'remind', longest: 4, heldBack: 2 }],
      lag: [{ topic: 'p.commands.remind', partition: 1, lag: 30, unfetched: 5 }],
      totals: { outcomesUnknown: 1 },
    });
  });
});
