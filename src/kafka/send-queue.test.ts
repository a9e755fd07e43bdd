import { describe, expect, it } from 'vitest';
import { KafkaWriteFailed } from '../errors.js';
import { MERGED_BYTES, SendQueue } from './send-queue.js';
import type { RecordPosition } from './tool-types.js';
import type { OutboundRecord } from './types.js';

const record = (value: string, partition = 0): OutboundRecord => ({
  topic: 't',
  partition,
  key: value,
  value,
});

/** A send whose every call waits until the test answers it; it records what each carried. */
function heldSend() {
  const calls: Array<{
    values: string[];
    answer: (positions: RecordPosition[]) => void;
    fail: (error: unknown) => void;
  }> = [];
  let inFlight = 0;
  let mostAtOnce = 0;
  const send = (records: readonly OutboundRecord[]) => {
    inFlight++;
    mostAtOnce = Math.max(mostAtOnce, inFlight);
    return new Promise<RecordPosition[]>((resolve, reject) => {
      const settle = () => inFlight--;
      calls.push({
        values: records.map((r) => String(r.value)),
        answer: (positions) => {
          settle();
          resolve(positions);
        },
        fail: (error) => {
          settle();
          reject(error);
        },
      });
    });
  };
  return { send, calls, mostAtOnce: () => mostAtOnce };
}

/** Offsets from `base` in the order of the records sent. */
const positions = (count: number, base: number): RecordPosition[] =>
  Array.from({ length: count }, (_, i) => ({ topic: 't', partition: 0, offset: String(base + i) }));

const turn = () => new Promise((resolve) => setImmediate(resolve));

const refusedForGood = () =>
  new KafkaWriteFailed('writing to Kafka failed: MESSAGE_TOO_LARGE', {
    details: { kafkaError: 'MESSAGE_TOO_LARGE', permanent: true },
  });

describe('SendQueue', () => {
  it('when two sends are called at once, then the second is not sent before the first settled, and each gets its own positions', async () => {
    const { send, calls, mostAtOnce } = heldSend();
    const queue = new SendQueue(send);
    const first = queue.send([record('a')]);
    const second = queue.send([record('b')]);
    await turn();
    expect(calls.map((c) => c.values)).toEqual([['a']]);
    calls[0]?.answer(positions(1, 10));
    await expect(first).resolves.toEqual(positions(1, 10));
    await turn();
    expect(calls.map((c) => c.values)).toEqual([['a'], ['b']]);
    calls[1]?.answer(positions(1, 11));
    await expect(second).resolves.toEqual(positions(1, 11));
    expect(mostAtOnce()).toBe(1);
  });

  it('when sends are called while one is in flight, then they go together in the next send, in the order called, each resolving with its own records positions', async () => {
    const { send, calls } = heldSend();
    const queue = new SendQueue(send);
    const first = queue.send([record('a')]);
    const second = queue.send([record('b'), record('c')]);
    const third = queue.send([record('d')]);
    await turn();
    calls[0]?.answer(positions(1, 0));
    await first;
    await turn();
    expect(calls.map((c) => c.values)).toEqual([['a'], ['b', 'c', 'd']]);
    calls[1]?.answer(positions(3, 1));
    await expect(second).resolves.toEqual(positions(2, 1));
    await expect(third).resolves.toEqual(positions(1, 3));
  });

  it('when a send fails for a reason that may pass, then every caller whose records it carried gets that error, and the queue goes on', async () => {
    const { send, calls } = heldSend();
    const queue = new SendQueue(send);
    const first = queue.send([record('a')]);
    const second = queue.send([record('b')]);
    const third = queue.send([record('c')]);
    await turn();
    calls[0]?.answer(positions(1, 0));
    await first;
    await turn();
    const lost = new KafkaWriteFailed('writing to Kafka failed: connection closed', {
      details: { kafkaError: 'KafkaJSConnectionClosedError', permanent: false },
    });
    calls[1]?.fail(lost);
    await expect(second).rejects.toBe(lost);
    await expect(third).rejects.toBe(lost);
    const fourth = queue.send([record('d')]);
    await turn();
    calls[2]?.answer(positions(1, 1));
    await expect(fourth).resolves.toEqual(positions(1, 1));
  });

  it('when Kafka refuses a send of several callers for good, then each caller is sent again alone and only the one refused alone is refused', async () => {
    const { send, calls } = heldSend();
    const queue = new SendQueue(send);
    const first = queue.send([record('a')]);
    const fine = queue.send([record('b')]);
    const tooLarge = queue.send([record('huge')]);
    await turn();
    calls[0]?.answer(positions(1, 0));
    await first;
    await turn();
    calls[1]?.fail(refusedForGood());
    await turn();
    expect(calls.map((c) => c.values)).toEqual([['a'], ['b', 'huge'], ['b']]);
    calls[2]?.answer(positions(1, 1));
    await expect(fine).resolves.toEqual(positions(1, 1));
    await turn();
    expect(calls[3]?.values).toEqual(['huge']);
    calls[3]?.fail(refusedForGood());
    await expect(tooLarge).rejects.toMatchObject({ details: { permanent: true } });
  });

  it('when the sends queued hold more than MERGED_BYTES, then the next send takes only what fits, and one larger send goes alone', async () => {
    const { send, calls } = heldSend();
    const queue = new SendQueue(send);
    const big = 'x'.repeat(MERGED_BYTES / 2);
    const sends = [
      queue.send([record('a')]),
      queue.send([record(big)]),
      queue.send([record(big)]),
      queue.send([record('x'.repeat(MERGED_BYTES * 2))]),
    ];
    for (let i = 0; i < 4; i++) {
      await turn();
      calls[i]?.answer(positions(calls[i]?.values.length ?? 0, i));
    }
    await Promise.all(sends);
    expect(calls.map((c) => c.values.length)).toEqual([1, 1, 1, 1]);
  });

  it('when nothing is given, then nothing is sent', async () => {
    const { send, calls } = heldSend();
    await expect(new SendQueue(send).send([])).resolves.toEqual([]);
    expect(calls).toEqual([]);
  });

  it('when idle() is asked while sends are queued, then it resolves once every one settled', async () => {
    const { send, calls } = heldSend();
    const queue = new SendQueue(send);
    const settled: string[] = [];
    void queue.send([record('a')]).then(() => settled.push('a'));
    void queue.send([record('b')]).then(() => settled.push('b'));
    const idle = queue.idle().then(() => settled.push('idle'));
    await turn();
    calls[0]?.answer(positions(1, 0));
    await turn();
    calls[1]?.answer(positions(1, 1));
    await idle;
    expect(settled).toEqual(['a', 'b', 'idle']);
  });
});
