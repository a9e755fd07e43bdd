import { describe, expect, it } from 'vitest';
import type { InstanceStatus } from '../../observability/status.js';
import { topicNames } from '../../schemas/messages/index.js';
import { groupView } from './group.js';

const topics = topicNames('t.');

function status(instance: string, partitions: number[]): InstanceStatus {
  return {
    instance,
    host: `pod-${instance}`,
    startedAt: '2026-11-28T10:00:00.000Z',
    ready: true,
    notReady: [],
    kafkaConnected: true,
    partitions,
    commands: { inFlight: 1, inFlightLimit: 10, pending: 2 },
    paused: [],
    breaker: { state: 'closed', cause: null },
    budget: { groupRps: 20, shareRps: 10, rateInForceRps: 10, throttled: 0 },
    classes: [],
    hotKeys: [],
    heldBack: [],
    lag: [],
    totals: { deadLetters: 0, outcomesUnknown: 0 },
  };
}

describe('the group as the console shows it', () => {
  it('when members hold partitions and instances answer, then each member has its status, lag is per partition and holder, and strangers are named', () => {
    const view = groupView(
      'g',
      {
        state: 'Stable',
        members: [
          {
            memberId: 'm-a',
            clientId: 'c',
            clientHost: '/10.0.0.1',
            instance: 'a',
            assignment: { [topics.commands.remind]: [0], [topics.ledger]: [0] },
          },
          {
            memberId: 'm-b',
            clientId: 'c',
            clientHost: '/10.0.0.2',
            instance: 'b',
            assignment: { [topics.commands.remind]: [1] },
          },
        ],
      },
      {
        [topics.commands.remind]: [
          { partition: 0, start: 0n, end: 10n, committed: 4n },
          { partition: 1, start: 5n, end: 9n },
        ],
        [topics.commands.approve]: [{ partition: 0, start: 0n, end: 3n, committed: 3n }],
      },
      [
        { url: 'http://a', status: status('a', [0]) },
        { url: 'http://c', status: status('c', []) },
        { url: 'http://d', problem: 'no answer in 1500 ms' },
      ],
      topics,
      new Date('2026-11-28T12:00:00Z'),
    );
    expect(view.members.map((m) => [m.instance, m.partitions, m.status?.host])).toEqual([
      ['a', [0], 'pod-a'],
      ['b', [1], undefined],
    ]);
    expect(view.lag).toEqual([
      { partition: 0, byType: { approve: 0, remind: 6 }, total: 6, heldBy: 'a' },
      { partition: 1, byType: { remind: 4 }, total: 4, heldBy: 'b' },
    ]);
    expect(view.totalLag).toBe(10);
    expect(view.outside.map((s) => s.instance)).toEqual(['c']);
    expect(view.unreachable).toEqual([{ url: 'http://d', problem: 'no answer in 1500 ms' }]);
  });
});
