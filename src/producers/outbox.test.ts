import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KafkaWriteFailed, OutboxClosed } from '../errors.js';
import type { OutboundRecord } from '../kafka/index.js';
import { Outbox, type OutboxOptions } from './outbox.js';

const retry = { initialDelayMs: 10, maxDelayMs: 10, multiplier: 1 };
const outboxOf = (
  options: Omit<OutboxOptions, 'retry' | 'maxBatchBytes'> & Partial<OutboxOptions>,
) => new Outbox({ retry, maxBatchBytes: 1_000_000, ...options });
const failure = (permanent: boolean) =>
  new KafkaWriteFailed('writing to Kafka failed', {
    details: { kafkaError: 'KafkaJSProtocolError', permanent },
  });

const record = (value: string): OutboundRecord => ({ topic: 't', key: 'k', value });

/** A sink whose sends complete only when the test says so. */
function controlledSink() {
  const sends: Array<{
    records: readonly OutboundRecord[];
    done: () => void;
    fail: (e: Error) => void;
  }> = [];
  const sink = (records: readonly OutboundRecord[]) =>
    new Promise<void>((resolve, reject) => sends.push({ records, done: resolve, fail: reject }));
  const values = (index: number) => sends[index]?.records.map((r) => r.value);
  return { sink, sends, values };
}

describe('Outbox', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when several commands write within the linger time, then their records go out in one send, in write order', async () => {
    vi.useFakeTimers();
    const { sink, sends, values } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 5, maxRecords: 100 });
    const first = outbox.write([record('a1'), record('a2')]);
    const second = outbox.write([record('b1')]);
    expect(sends).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(5);
    expect(values(0)).toEqual(['a1', 'a2', 'b1']);
    sends[0]?.done();
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
  });

  it('when a send is in flight, then the next writes gather and go as soon as it returns', async () => {
    vi.useFakeTimers();
    const { sink, sends, values } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 5, maxRecords: 100 });
    void outbox.write([record('a')]);
    await vi.advanceTimersByTimeAsync(5);
    void outbox.write([record('b')]);
    void outbox.write([record('c')]);
    await vi.advanceTimersByTimeAsync(50);
    expect(sends).toHaveLength(1);
    sends[0]?.done();
    await vi.advanceTimersByTimeAsync(0);
    expect(values(1)).toEqual(['b', 'c']);
  });

  it('when maxRecords are waiting, then it sends at once without lingering, whole writes only', async () => {
    const { sink, sends, values } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 60_000, maxRecords: 3 });
    void outbox.write([record('a1'), record('a2')]);
    expect(sends).toHaveLength(0);
    void outbox.write([record('b1'), record('b2')]);
    expect(values(0)).toEqual(['a1', 'a2']);
    sends[0]?.done();
    await vi.waitFor(() => expect(values(1)).toEqual(['b1', 'b2']));
  });

  it('when a send fails for a reason that may pass, then the same records go again before any later write', async () => {
    const { sink, sends, values } = controlledSink();
    const failed = vi.fn();
    const outbox = outboxOf({ sink, lingerMs: 0, maxRecords: 1, onSendFailed: failed });
    const first = outbox.write([record('a')]);
    void outbox.write([record('b')]);
    sends[0]?.fail(failure(false));
    await vi.waitFor(() => expect(sends).toHaveLength(2));
    expect(values(1)).toEqual(['a']);
    // With what it sent: the partitions it may be stuck on are among theirs.
    expect(failed).toHaveBeenCalledWith(expect.any(KafkaWriteFailed), 0, expect.any(Number), [
      expect.objectContaining({ value: 'a' }),
    ]);
    sends[1]?.done();
    await expect(first).resolves.toBeUndefined();
    await vi.waitFor(() => expect(values(2)).toEqual(['b']));
  });

  it('when sends fail and then one goes through, then whoever watches hears each failure and, once, that they ended answered; a send that never failed tells nothing', async () => {
    const { sink, sends } = controlledSink();
    const failed = vi.fn();
    const ended = vi.fn();
    const outbox = outboxOf({
      sink,
      lingerMs: 0,
      maxRecords: 1,
      onSendFailed: failed,
      onRetriesEnded: ended,
    });
    const first = outbox.write([record('a')]);
    sends[0]?.fail(failure(false));
    await vi.waitFor(() => expect(sends).toHaveLength(2));
    sends[1]?.fail(failure(false));
    await vi.waitFor(() => expect(sends).toHaveLength(3));
    expect(failed.mock.calls.map(([, attempt]) => attempt)).toEqual([0, 1]);
    expect(ended).not.toHaveBeenCalled();
    sends[2]?.done();
    await first;
    expect(ended.mock.calls).toEqual([[true]]);
    const second = outbox.write([record('b')]);
    await vi.waitFor(() => expect(sends).toHaveLength(4));
    sends[3]?.done();
    await second;
    expect(ended).toHaveBeenCalledOnce();
  });

  it('when a send that failed is then refused for good, then its failures ended answered: Kafka answers', async () => {
    const { sink, sends } = controlledSink();
    const ended = vi.fn();
    const outbox = outboxOf({ sink, lingerMs: 0, maxRecords: 1, onRetriesEnded: ended });
    const refused = outbox.write([record('a')]);
    sends[0]?.fail(failure(false));
    await vi.waitFor(() => expect(sends).toHaveLength(2));
    sends[1]?.fail(failure(true));
    await expect(refused).rejects.toBeInstanceOf(KafkaWriteFailed);
    expect(ended.mock.calls).toEqual([[true]]);
  });

  it('when Kafka refuses a send for good, then its writes reject and later writes still go', async () => {
    const { sink, sends } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 0, maxRecords: 1 });
    const refused = outbox.write([record('a')]);
    const later = outbox.write([record('b')]);
    sends[0]?.fail(failure(true));
    await expect(refused).rejects.toBeInstanceOf(KafkaWriteFailed);
    await vi.waitFor(() => expect(sends).toHaveLength(2));
    sends[1]?.done();
    await expect(later).resolves.toBeUndefined();
  });

  it('when a batch of several writes is refused for good, then the writes go again one by one, in order, and only the one Kafka refuses alone fails', async () => {
    const { sink, sends, values } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 0, maxRecords: 100 });
    const first = outbox.write([record('a')]);
    const poison = outbox.write([record('p1'), record('p2')]);
    poison.catch(() => {});
    const last = outbox.write([record('c')]);
    await vi.waitFor(() => expect(sends).toHaveLength(1));
    expect(values(0)).toEqual(['a', 'p1', 'p2', 'c']);
    sends[0]?.fail(failure(true));
    await vi.waitFor(() => expect(sends).toHaveLength(2));
    expect(values(1)).toEqual(['a']);
    sends[1]?.done();
    await vi.waitFor(() => expect(sends).toHaveLength(3));
    expect(values(2)).toEqual(['p1', 'p2']);
    sends[2]?.fail(failure(true));
    await vi.waitFor(() => expect(sends).toHaveLength(4));
    expect(values(3)).toEqual(['c']);
    sends[3]?.done();
    await expect(first).resolves.toBeUndefined();
    await expect(poison).rejects.toMatchObject({ details: { permanent: true } });
    await expect(last).resolves.toBeUndefined();
  });

  it('when a write holds a record larger than any batch may be, then it is refused at once without being sent, and others go on', async () => {
    const { sink, sends, values } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 0, maxRecords: 100, maxBatchBytes: 1_000 });
    const tooLarge = outbox.write([record('x'.repeat(1_000)), record('small')]);
    await expect(tooLarge).rejects.toMatchObject({
      retryable: false,
      details: { kafkaError: 'RecordTooLarge', permanent: true },
    });
    const fine = outbox.write([record('y'.repeat(900))]);
    await vi.waitFor(() => expect(sends).toHaveLength(1));
    expect(values(0)).toEqual(['y'.repeat(900)]);
    sends[0]?.done();
    await expect(fine).resolves.toBeUndefined();
  });

  it('when the writes waiting add up to more than maxBatchBytes, then a flush takes whole writes up to that size', async () => {
    const { sink, sends, values } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 60_000, maxRecords: 100, maxBatchBytes: 1_000 });
    void outbox.write([record('a'.repeat(400))]);
    expect(sends).toHaveLength(0);
    void outbox.write([record('b'.repeat(400))]);
    void outbox.write([record('c'.repeat(400))]);
    await vi.waitFor(() => expect(sends).toHaveLength(1));
    expect(values(0)?.map((v) => String(v)[0])).toEqual(['a', 'b']);
    sends[0]?.done();
    await vi.waitFor(() => expect(sends).toHaveLength(2));
    expect(values(1)?.map((v) => String(v)[0])).toEqual(['c']);
  });

  it('when one send holds several records of a key of a compacted topic, then only the last of them goes', async () => {
    vi.useFakeTimers();
    const { sink, values } = controlledSink();
    const outbox = outboxOf({
      sink,
      lingerMs: 5,
      maxRecords: 100,
      compactedTopics: new Set(['ledger']),
    });
    const ledger = (key: string, value: string): OutboundRecord => ({
      topic: 'ledger',
      partition: 1,
      key,
      value,
    });
    void outbox.write([ledger('biz-1', 'step'), record('event-1')]);
    void outbox.write([ledger('biz-2', 'other'), ledger('biz-1', 'ended'), record('event-2')]);
    await vi.advanceTimersByTimeAsync(5);
    expect(values(0)).toEqual(['event-1', 'other', 'ended', 'event-2']);
  });

  it('when records of compacted and other topics, partitions and keys share a send, then of each topic, partition and key of a compacted topic only the last goes, and everything else goes in order', async () => {
    const outbound = fc.record({
      topic: fc.constantFrom('ledger', 'marks', 'events'),
      partition: fc.constantFrom(undefined, 0, 1),
      key: fc.constantFrom(null, 'a', 'b', 'a\n0'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(outbound, { maxLength: 30 }), async (shapes) => {
        const records = shapes.map((shape, i) => ({ ...shape, value: `v${i}` }));
        const sent: OutboundRecord[] = [];
        const sink = async (batch: readonly OutboundRecord[]) => void sent.push(...batch);
        const compactedTopics = new Set(['ledger', 'marks']);
        const outbox = outboxOf({ sink, lingerMs: 60_000, maxRecords: 1_000, compactedTopics });
        for (const one of records) void outbox.write([one]);
        await outbox.drain();
        const isLast = (one: OutboundRecord, i: number) =>
          !compactedTopics.has(one.topic) ||
          one.key === null ||
          !records
            .slice(i + 1)
            .some(
              (later) =>
                [later.topic, later.partition, later.key].join() ===
                [one.topic, one.partition, one.key].join(),
            );
        expect(sent).toEqual(records.filter(isLast));
      }),
    );
  });

  it('when closed while a send keeps failing for a reason that may pass, then its writes and those waiting reject with OutboxClosed, nothing is sent again, its failures ended given up, and no timer is left', async () => {
    vi.useFakeTimers();
    const { sink, sends } = controlledSink();
    const ended = vi.fn();
    const outbox = outboxOf({ sink, lingerMs: 5, maxRecords: 1, onRetriesEnded: ended });
    const sent = outbox.write([record('a')]);
    const waiting = outbox.write([record('b')]);
    await vi.advanceTimersByTimeAsync(5);
    sends[0]?.fail(failure(false));
    await vi.advanceTimersByTimeAsync(0);
    outbox.close();
    await expect(sent).rejects.toBeInstanceOf(OutboxClosed);
    await expect(waiting).rejects.toMatchObject({ code: 'SB_ERR_OUTBOX_CLOSED', retryable: false });
    expect(ended.mock.calls).toEqual([[false]]);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sends).toHaveLength(1);
  });

  it('when closed while a send is in flight, then its writes reject at once, drain resolves, and a late acknowledgement is ignored', async () => {
    const { sink, sends } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 0, maxRecords: 100 });
    const sent = outbox.write([record('a'), record('b')]);
    await vi.waitFor(() => expect(sends).toHaveLength(1));
    outbox.close();
    await expect(sent).rejects.toMatchObject({ details: { records: 2 } });
    await expect(outbox.drain()).resolves.toBeUndefined();
    sends[0]?.done();
    await expect(outbox.write([record('c')])).rejects.toBeInstanceOf(OutboxClosed);
    expect(sends).toHaveLength(1);
  });

  it('drain resolves once everything written so far was sent', async () => {
    const { sink, sends } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 60_000, maxRecords: 100 });
    void outbox.write([record('a')]);
    const drained = vi.fn();
    void outbox.drain().then(drained);
    await vi.waitFor(() => expect(sends).toHaveLength(1));
    expect(drained).not.toHaveBeenCalled();
    sends[0]?.done();
    await vi.waitFor(() => expect(drained).toHaveBeenCalledOnce());
  });

  it("when a write's owner is gone by the time it would be sent, then it is rejected with the owner's error and not sent; the others go", async () => {
    vi.useFakeTimers();
    const { sink, sends, values } = controlledSink();
    const outbox = outboxOf({ sink, lingerMs: 5, maxRecords: 100 });
    let gone = false;
    const lost = new Error('partition lost');
    const owner = {
      assertSendable() {
        if (gone) throw lost;
      },
    };
    const owned = outbox.write([record('lost-1')], owner).catch((error: unknown) => error);
    const other = outbox.write([record('kept-1')]);
    gone = true;
    await vi.advanceTimersByTimeAsync(5);
    expect(await owned).toBe(lost);
    expect(values(0)).toEqual(['kept-1']);
    sends[0]?.done();
    await expect(other).resolves.toBeUndefined();
  });

  it('when a batch is sent again after a failure and its owner went meanwhile, then it is not sent again, and its failures ended given up', async () => {
    vi.useFakeTimers();
    const { sink, sends } = controlledSink();
    const ended = vi.fn();
    const outbox = outboxOf({ sink, lingerMs: 0, maxRecords: 100, onRetriesEnded: ended });
    let gone = false;
    const owner = {
      assertSendable() {
        if (gone) throw new Error('lease ended');
      },
    };
    const written = outbox.write([record('a')], owner).catch((error: Error) => error.message);
    await vi.advanceTimersByTimeAsync(0);
    gone = true;
    sends[0]?.fail(failure(false));
    await vi.advanceTimersByTimeAsync(10);
    expect(await written).toBe('lease ended');
    expect(sends).toHaveLength(1);
    expect(ended.mock.calls).toEqual([[false]]);
  });

  it('when the outbox refuses every write (the lease ended), then nothing of the batch is sent', async () => {
    vi.useFakeTimers();
    const { sink, sends } = controlledSink();
    const refusal = new Error('lease ended');
    const outbox = outboxOf({ sink, lingerMs: 0, maxRecords: 100, refusal: () => refusal });
    const written = outbox.write([record('a')]).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(0);
    expect(await written).toBe(refusal);
    expect(sends).toHaveLength(0);
  });
});
