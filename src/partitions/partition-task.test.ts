import { describe, expect, it, vi } from 'vitest';
import { heldLease } from '../../test/support/held-lease.js';
import { PartitionReleased } from '../errors.js';
import type { OutboundRecord } from '../kafka/index.js';
import { LedgerReader } from '../ledger/index.js';
import { CrashGuard } from './crash-guard.js';
import { Lease } from './lease.js';
import type { PartitionEvent } from './partition-machine.js';
import { PartitionTask } from './partition-task.js';

const settings = { handoverTimeoutMs: 10_000, abortGraceMs: 1_000 };
const revoked: PartitionEvent = { type: 'revoked', drainMs: 5_000 };

describe('PartitionTask', () => {
  it('when active, then its commands may start and write; draining, they may only write; releasing, neither', () => {
    const task = new PartitionTask(0, { phase: 'active' }, heldLease);
    expect([task.canStart, task.revoked]).toEqual([true, false]);
    task.step(revoked, settings);
    expect([task.phase, task.canStart, task.revoked]).toEqual(['draining', false, false]);
    task.step({ type: 'runs-idle' }, settings);
    expect([task.phase, task.canStart, task.revoked]).toEqual(['releasing', false, true]);
    expect(() => task.assertWritable()).toThrow(PartitionReleased);
  });

  it('when less than half the lease is left, then a step waits to be recorded started until a heartbeat renews it; once the lease is lost, it is refused', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const lease = new Lease(6_000);
      lease.step({ type: 'answered', at: performance.now() });
      const task = new PartitionTask(0, { phase: 'active' }, lease);
      await expect(task.untilStartable()).resolves.toBeUndefined();

      await vi.advanceTimersByTimeAsync(3_500);
      let started = false;
      const waiting = task.untilStartable().then(() => {
        started = true;
      });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(started).toBe(false);
      lease.step({ type: 'answered', at: performance.now() });
      await vi.advanceTimersByTimeAsync(100);
      await waiting;
      expect(started).toBe(true);

      await vi.advanceTimersByTimeAsync(3_500);
      const refused = task.untilStartable();
      refused.catch(() => {});
      await vi.advanceTimersByTimeAsync(1_000);
      lease.step({ type: 'due', at: performance.now() + 2_000 });
      await vi.advanceTimersByTimeAsync(100);
      await expect(refused).rejects.toBeInstanceOf(PartitionReleased);
    } finally {
      vi.useRealTimers();
    }
  });

  it('when its runs end, then a drain waiting for them goes on; a release lets it go on regardless', async () => {
    const task = new PartitionTask(0, { phase: 'active' }, heldLease);
    task.startRun();
    let idle = false;
    void task.whenIdle().then(() => {
      idle = true;
    });
    task.endRun();
    await Promise.resolve();
    expect(idle).toBe(true);
    const stuck = task.startRun();
    const waiting = task.whenIdle();
    task.step(revoked, settings);
    task.step({ type: 'drain-timed-out' }, settings);
    expect(stuck.aborted).toBe(false);
    task.step({ type: 'abort-grace-over' }, settings);
    await waiting;
  });

  it('when runs overlap, then they share a signal that a release aborts for all; a run started afterwards gets a fresh one', () => {
    const task = new PartitionTask(0, { phase: 'active' }, heldLease);
    const first = task.startRun();
    const second = task.startRun();
    expect(second).toBe(first);
    const released = new Error('partition 0 was released');
    task.abortRuns(released);
    expect([first.aborted, first.reason]).toEqual([true, released]);
    const later = task.startRun();
    expect(later.aborted).toBe(false);
  });

  it('when many runs listen on the shared signal at once, then no listener-leak warning is emitted (an EventTarget with the default limit would warn)', () => {
    // An EventTarget past its listener limit calls process.emitWarning from addEventListener.
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const listen = (target: EventTarget) => {
      for (let listener = 0; listener < 50; listener++) target.addEventListener('abort', () => {});
    };
    const task = new PartitionTask(0, { phase: 'active' }, heldLease);
    for (let run = 0; run < 50; run++) listen(task.startRun());
    expect(emitWarning).not.toHaveBeenCalled();
    listen(new EventTarget());
    expect(emitWarning).toHaveBeenCalledOnce();
    emitWarning.mockRestore();
  });

  it('when a record is taken twice (a rebalance moved the fetch position back), then it is in hand once; finished, it is committable', () => {
    const task = new PartitionTask(3, { phase: 'active' }, heldLease);
    expect(task.receive('cmd.a', '7', 'k', () => true)).toBe('take');
    expect(task.receive('cmd.b', '2', 'k', () => true)).toBe('take');
    expect(task.receive('cmd.a', '7', 'k', () => true)).toBe('skip');
    task.receive('cmd.a', '8', 'k', () => true);
    task.finish('cmd.a', '8');
    expect(task.committable()).toEqual([]);
    task.finish('cmd.a', '7');
    expect(task.committable()).toEqual([{ topic: 'cmd.a', partition: 3, offset: '9' }]);
    task.committed('cmd.a', '9');
    expect(task.committable()).toEqual([]);
    expect(task.nextInHand('cmd.a')).toBe(9n);
  });

  it('when the same partition is acquired anew, then the new task holds nothing of the old one: offsets, forwarded marks, runs', () => {
    const old = new PartitionTask(0, { phase: 'active' }, heldLease);
    old.receive('cmd.a', '4', 'k', () => true);
    old.markForwarded('cmd.a', 4n);
    old.close();
    expect(old.revoked).toBe(true);
    const fresh = new PartitionTask(0, { phase: 'active' }, heldLease);
    expect(fresh.receive('cmd.a', '4', 'k', () => true)).toBe('take');
    expect(fresh.forwardedUpTo('cmd.a')).toBe(-1n);
    expect(fresh.marks('ledger')).toEqual([]);
  });

  it('when a sweep is still running, then another is not started', async () => {
    const task = new PartitionTask(0, { phase: 'active' }, heldLease);
    let sweeps = 0;
    let finish: () => void = () => {};
    const sweep = () =>
      new Promise<void>((resolve) => {
        sweeps++;
        finish = resolve;
      });
    const first = task.sweepOnce(sweep);
    await task.sweepOnce(sweep);
    finish();
    await first;
    await task.sweepOnce(async () => {
      sweeps++;
    });
    expect(sweeps).toBe(2);
  });

  it('when crashed holders had records in hand, then it recovers them through its guard until the group has committed past them; never acquired, it recovers nothing', async () => {
    const written: OutboundRecord[] = [];
    const outbox = {
      write: async (records: readonly OutboundRecord[]) => void written.push(...records),
    };
    const marker = { kind: 'acquired' as const, instance: 'me', nonce: 'n' };
    const guard = new CrashGuard({
      partition: 0,
      ledgerTopic: 'ledger',
      marker,
      outbox: outbox as never,
      owner: { assertSendable() {} },
      maxDeaths: 2,
      onRefused: () => {},
      liveInstances: async () => new Set(['me']),
    });
    const inHand = new Map([['cmd.a', 5n]]);
    expect(
      new PartitionTask(0, { phase: 'active' }, heldLease).recover(inHand, [], undefined),
    ).toBe(false);

    const task = new PartitionTask(0, { phase: 'active' }, heldLease);
    task.acquire(guard, new LedgerReader({ instance: 'me', nonce: 'n' }), 0);
    expect(task.recover(inHand, [], undefined)).toBe(true);
    const last = () => JSON.parse(String(written.at(-1)?.value));
    await vi.waitFor(() => expect(last()).toMatchObject({ recovering: { 'cmd.a': '5' } }));
    task.committedSince('cmd.a', 6n);
    await vi.waitFor(() => expect(last()).not.toHaveProperty('recovering'));
  });
});
