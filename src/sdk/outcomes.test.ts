import { describe, expect, it } from 'vitest';
import { OutcomeWaitTimedOut, SubscriberUnavailable } from '../errors.js';
import type { BridgeEvent } from './events.js';
import { answers, OutcomeBook, type OutcomeOf } from './outcomes.js';

function ended(commandId: string, terminal = true, subject = 'biz'): BridgeEvent {
  return {
    commandId,
    subject,
    terminal,
    id: `${subject}/${commandId}/sent`,
    type: 'signingbridge.reminder.sent',
    data: {},
  } as unknown as BridgeEvent;
}

/** The command `commandId` of bizId `biz`. */
function of(commandId: string, bizId = 'biz'): OutcomeOf {
  return { bizId, commandId };
}

describe('OutcomeBook', () => {
  it('when the terminal event arrives after the wait began, then the wait resolves with it', async () => {
    const book = new OutcomeBook();
    const waiting = book.wait(of('a'));
    book.add(ended('a', false));
    book.add(ended('a'));
    await expect(waiting).resolves.toEqual(ended('a'));
  });

  it('when the terminal event arrived before the wait, then the wait finds it; a repeat does not replace it', async () => {
    const book = new OutcomeBook();
    const first = ended('a');
    book.add(first);
    book.add({ ...ended('a'), id: 'again' } as BridgeEvent);
    await expect(book.wait(of('a'))).resolves.toBe(first);
  });

  it('when as many outcomes as kept arrived, then the oldest is still found; one more, and it is not', async () => {
    const book = new OutcomeBook({ recent: 3, waits: 10 });
    for (const id of ['a', 'b', 'c']) book.add(ended(id));
    await expect(book.wait(of('a'), { timeoutMs: 1 })).resolves.toEqual(ended('a'));
    book.add(ended('d'));
    await expect(book.wait(of('a'), { timeoutMs: 1 })).rejects.toBeInstanceOf(OutcomeWaitTimedOut);
    await expect(book.wait(of('b'), { timeoutMs: 1 })).resolves.toEqual(ended('b'));
  });

  it('when as many waits as allowed are running, then one more is refused', async () => {
    const book = new OutcomeBook({ recent: 10, waits: 2 });
    const waits = [book.wait(of('a')), book.wait(of('b'))];
    await expect(book.wait(of('c'))).rejects.toMatchObject({
      details: { reason: 'too-many-waits' },
    });
    book.add(ended('a'));
    await waits[0];
    const third = book.wait(of('c'));
    book.add(ended('b'));
    book.add(ended('c'));
    await expect(Promise.all([waits[1], third])).resolves.toHaveLength(2);
  });

  it('when nothing comes in time, then the wait rejects with OutcomeWaitTimedOut naming the command', async () => {
    const book = new OutcomeBook();
    await expect(book.wait(of('a'), { timeoutMs: 5 })).rejects.toMatchObject({
      code: 'SB_ERR_SDK_OUTCOME_TIMED_OUT',
      details: { commandId: 'a', timeoutMs: 5 },
    });
  });

  it('when the signal aborts, then the wait rejects with its reason', async () => {
    const book = new OutcomeBook();
    const controller = new AbortController();
    const waiting = book.wait(of('a'), { signal: controller.signal });
    controller.abort(new Error('enough'));
    await expect(waiting).rejects.toThrow('enough');
  });

  it('when the book closes, then waits reject with the reason, now and later', async () => {
    const book = new OutcomeBook();
    const waiting = book.wait(of('a'));
    const stopped = new SubscriberUnavailable('stopped', { details: { reason: 'stopped' } });
    book.close(stopped);
    await expect(waiting).rejects.toBe(stopped);
    await expect(book.wait(of('b'))).rejects.toBe(stopped);
  });

  it("when two bizIds use one commandId, then each wait gets its own bizId's ending", async () => {
    const book = new OutcomeBook();
    const second = book.wait(of('daily', 'biz-2'));
    book.add(ended('daily', true, 'biz-1'));
    book.add(ended('daily', true, 'biz-2'));
    await expect(book.wait(of('daily', 'biz-1'))).resolves.toMatchObject({ subject: 'biz-1' });
    await expect(second).resolves.toMatchObject({ subject: 'biz-2' });
  });

  it('when a wait names its record, then an ending of another send that is not final does not answer it; a final one does', async () => {
    const book = new OutcomeBook();
    const at = (offset: string) => ({ topic: 't', partition: 0, offset });
    const failed = (offset: string, final: boolean) =>
      ({
        ...ended('a'),
        id: `biz/a/failed@t/0/${offset}`,
        type: 'signingbridge.command.failed',
        data: { final, source: at(offset) },
      }) as unknown as BridgeEvent;
    book.add(failed('1', false));
    const second = book.wait({ ...of('a'), ...at('2') });
    book.add(failed('3', false));
    book.add(failed('2', false));
    await expect(second).resolves.toMatchObject({ id: 'biz/a/failed@t/0/2' });
    const fourth = book.wait({ ...of('a'), ...at('4') });
    book.add(failed('5', true));
    await expect(fourth).resolves.toMatchObject({ id: 'biz/a/failed@t/0/5' });
  });

  describe('a commandId sent again, as CommandProducer.send returns each send', () => {
    const at = (offset: string) => ({ topic: 't', partition: 0, offset });
    // approve X with pass: true (offset 1), then X again: pass: false (offset 2), or pass: true.
    const first = { ...of('X'), ...at('1'), fingerprint: 'fp-pass' };
    const reused = { ...of('X'), ...at('2'), fingerprint: 'fp-refuse' };
    const resent = { ...of('X'), ...at('3'), fingerprint: 'fp-pass' };
    const recorded = {
      ...ended('X'),
      id: 'biz/X/approve@t/0/1',
      type: 'signingbridge.approval.recorded',
      data: { source: at('1'), fingerprint: 'fp-pass' },
    } as unknown as BridgeEvent;
    const rejected = {
      ...ended('X'),
      id: 'biz/X/rejected@t/0/2',
      type: 'signingbridge.command.rejected',
      data: { final: false, source: at('2'), error: { code: 'SB_ERR_COMMAND_ID_REUSED' } },
    } as unknown as BridgeEvent;

    it.each([
      ['before', [recorded, rejected]],
      ['after', [rejected, recorded]],
    ])(
      'when the first send ends %s the rejection of a send with other content, then each wait gets its own send’s ending',
      async (_order, arrivals) => {
        const book = new OutcomeBook();
        const waits = [book.wait(first), book.wait(reused)];
        for (const event of arrivals) book.add(event);
        await expect(Promise.all(waits)).resolves.toEqual([recorded, rejected]);
        // Waits that begin after both arrived find the same.
        await expect(book.wait(reused)).resolves.toBe(rejected);
        await expect(book.wait(first)).resolves.toBe(recorded);
      },
    );

    it('when the first send ended for good and the same content is sent again, then its wait gets the first send’s ending, kept or still to come', async () => {
      const waiting = new OutcomeBook();
      const before = waiting.wait(resent);
      waiting.add(recorded);
      await expect(before).resolves.toBe(recorded);
      const kept = new OutcomeBook();
      kept.add(recorded);
      await expect(kept.wait(resent)).resolves.toBe(recorded);
    });

    it('when a send has other content, then the first send’s final ending does not answer it; its own rejection does', () => {
      expect([answers(recorded, reused), answers(rejected, reused)]).toEqual([false, true]);
      expect([answers(recorded, first), answers(rejected, first)]).toEqual([true, false]);
    });

    it('when the ending names no fingerprint (an earlier bridge), then a final ending answers every send of its commandId, as before', async () => {
      const book = new OutcomeBook();
      const { fingerprint: _, ...withoutFingerprint } = recorded.data as Record<string, unknown>;
      const older = { ...recorded, data: withoutFingerprint } as unknown as BridgeEvent;
      book.add(older);
      await expect(book.wait(reused)).resolves.toBe(older);
    });
  });
});
