import { describe, expect, it } from 'vitest';
import { OutcomeWaitTimedOut, SubscriberUnavailable } from '../errors.js';
import type { BridgeEvent } from './events.js';
import { OutcomeBook } from './outcomes.js';

function ended(commandId: string, terminal = true): BridgeEvent {
  return { commandId, terminal, type: 'signingbridge.reminder.sent' } as BridgeEvent;
}

describe('OutcomeBook', () => {
  it('when the terminal event arrives after the wait began, then the wait resolves with it', async () => {
    const book = new OutcomeBook();
    const waiting = book.wait('a');
    book.add(ended('a', false));
    book.add(ended('a'));
    await expect(waiting).resolves.toEqual(ended('a'));
  });

  it('when the terminal event arrived before the wait, then the wait finds it; a repeat does not replace it', async () => {
    const book = new OutcomeBook();
    const first = ended('a');
    book.add(first);
    book.add({ ...ended('a'), id: 'again' } as BridgeEvent);
    await expect(book.wait('a')).resolves.toBe(first);
  });

  it('when as many outcomes as kept arrived, then the oldest is still found; one more, and it is not', async () => {
    const book = new OutcomeBook({ recent: 3, waits: 10 });
    for (const id of ['a', 'b', 'c']) book.add(ended(id));
    await expect(book.wait('a', { timeoutMs: 1 })).resolves.toEqual(ended('a'));
    book.add(ended('d'));
    await expect(book.wait('a', { timeoutMs: 1 })).rejects.toBeInstanceOf(OutcomeWaitTimedOut);
    await expect(book.wait('b', { timeoutMs: 1 })).resolves.toEqual(ended('b'));
  });

  it('when as many waits as allowed are running, then one more is refused', async () => {
    const book = new OutcomeBook({ recent: 10, waits: 2 });
    const waits = [book.wait('a'), book.wait('b')];
    await expect(book.wait('c')).rejects.toMatchObject({ details: { reason: 'too-many-waits' } });
    book.add(ended('a'));
    await waits[0];
    const third = book.wait('c');
    book.add(ended('b'));
    book.add(ended('c'));
    await expect(Promise.all([waits[1], third])).resolves.toHaveLength(2);
  });

  it('when nothing comes in time, then the wait rejects with OutcomeWaitTimedOut naming the command', async () => {
    const book = new OutcomeBook();
    await expect(book.wait('a', { timeoutMs: 5 })).rejects.toMatchObject({
      code: 'SB_ERR_SDK_OUTCOME_TIMED_OUT',
      details: { commandId: 'a', timeoutMs: 5 },
    });
  });

  it('when the signal aborts, then the wait rejects with its reason', async () => {
    const book = new OutcomeBook();
    const controller = new AbortController();
    const waiting = book.wait('a', { signal: controller.signal });
    controller.abort(new Error('enough'));
    await expect(waiting).rejects.toThrow('enough');
  });

  it('when the book closes, then waits reject with the reason, now and later', async () => {
    const book = new OutcomeBook();
    const waiting = book.wait('a');
    const stopped = new SubscriberUnavailable('stopped', { details: { reason: 'stopped' } });
    book.close(stopped);
    await expect(waiting).rejects.toBe(stopped);
    await expect(book.wait('b')).rejects.toBe(stopped);
  });
});
