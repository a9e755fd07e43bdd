import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Answer, type Delivery, deliver } from './answer-writers.js';

const ANSWER: Answer = { status: 200, text: '{"responseCode":"00000000","message":"SUCCESS"}' };

/** A response that records what is written; `accepting` false makes write() ask for 'drain'. */
function exchange() {
  const socket = { destroyed: false, resetAndDestroy: vi.fn(), destroy: vi.fn() };
  const req = Object.assign(new EventEmitter(), { socket });
  const res = Object.assign(new EventEmitter(), {
    destroyed: false,
    accepting: true,
    status: undefined as number | undefined,
    headers: {} as Record<string, unknown>,
    chunks: [] as Buffer[],
    ended: false,
    writeHead(status: number, headers: Record<string, unknown>) {
      res.status = status;
      res.headers = headers;
      return res;
    },
    flushHeaders: vi.fn(),
    write(chunk: Buffer | string, done?: () => void) {
      res.chunks.push(Buffer.from(chunk));
      done?.();
      return res.accepting;
    },
    end(chunk?: Buffer | string) {
      if (chunk !== undefined) res.chunks.push(Buffer.from(chunk));
      res.ended = true;
      return res;
    },
    /** The client closes the connection. */
    close() {
      res.destroyed = true;
      res.emit('close');
    },
    body: () => Buffer.concat(res.chunks),
  });
  const send = (delivery: Delivery, answer = ANSWER) =>
    deliver(delivery, req as unknown as IncomingMessage, res as unknown as ServerResponse, answer);
  return { socket, res, send };
}

describe('deliver', () => {
  it('when the answer goes out normally, then it is the JSON text with its length', async () => {
    const { res, send } = exchange();

    expect(await send({ kind: 'normal' })).toBe(true);
    expect(res.body().toString()).toBe(ANSWER.text);
    expect(res.headers).toMatchObject({ 'content-length': ANSWER.text.length });
  });

  it('when the connection is reset after apply, then the head and half the body go out before the reset', async () => {
    const { res, socket, send } = exchange();

    expect(await send({ kind: 'resetAfterApply' })).toBe(false);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(ANSWER.text.length);
    expect(res.body().toString()).toBe(ANSWER.text.slice(0, Math.ceil(ANSWER.text.length / 2)));
    expect(socket.resetAndDestroy).toHaveBeenCalledOnce();
    expect(res.ended).toBe(false);
  });

  it('when the answer is garbage, then it is a 200 claiming JSON that JSON cannot read', async () => {
    const { res, send } = exchange();

    expect(await send({ kind: 'garbage' })).toBe(false);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(res.headers['content-length']).toBe(res.body().length);
    expect(() => JSON.parse(res.body().toString())).toThrow(SyntaxError);
  });

  it('when the answer is huge, then it is the real envelope plus padding, exactly the bytes asked for, valid JSON', async () => {
    const { res, send } = exchange();

    expect(await send({ kind: 'huge', bytes: 200_000 })).toBe(true);
    const body = res.body();
    expect(body.length).toBe(200_000);
    expect(res.headers['content-length']).toBe(200_000);
    expect(JSON.parse(body.toString())).toMatchObject({
      responseCode: '00000000',
      padding: expect.stringMatching(/^x+$/),
    });
  });

  it('when a huge answer is asked smaller than the real answer, then the real answer goes out whole', async () => {
    const { res, send } = exchange();

    await send({ kind: 'huge', bytes: 10 });

    expect(JSON.parse(res.body().toString())).toEqual({ ...JSON.parse(ANSWER.text), padding: '' });
  });

  it('when the socket asks to wait, then the huge answer writes nothing more until it drains', async () => {
    const { res, send } = exchange();
    res.accepting = false;
    const delivered = send({ kind: 'huge', bytes: 1_000_000 });

    // The head and one chunk of padding, then it waits.
    expect(res.chunks).toHaveLength(2);
    res.emit('drain');
    expect(res.chunks).toHaveLength(3);
    res.accepting = true;
    res.emit('drain');

    expect(await delivered).toBe(true);
    expect(res.body().length).toBe(1_000_000);
  });

  it('when the client leaves during a huge answer, then it stops writing and listens no more', async () => {
    const { res, send } = exchange();
    res.accepting = false;
    const delivered = send({ kind: 'huge', bytes: 1_000_000 });

    res.close();

    expect(await delivered).toBe(false);
    expect(res.listenerCount('drain')).toBe(0);
    expect(res.ended).toBe(false);
  });

  it('when the client has already left, then a spoiled answer writes nothing', async () => {
    const { res, send } = exchange();
    res.destroyed = true;

    expect(await send({ kind: 'drip', ms: 5 })).toBe(false);
    expect(res.status).toBeUndefined();
  });

  describe('with fake timers', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('when the answer is late, then the whole answer goes out only after ms', async () => {
      const { res, send } = exchange();
      const delivered = send({ kind: 'late', ms: 4000 });

      await vi.advanceTimersByTimeAsync(3999);
      expect(res.status).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);

      expect(await delivered).toBe(true);
      expect(res.body().toString()).toBe(ANSWER.text);
    });

    it('when the client leaves before a late answer, then nothing is sent and no timer is left', async () => {
      const { res, send } = exchange();
      const delivered = send({ kind: 'late', ms: 4000 });

      res.close();

      expect(await delivered).toBe(false);
      expect(res.status).toBeUndefined();
      expect(vi.getTimerCount()).toBe(0);
    });

    it('when the answer drips, then the head goes at once and one byte every ms', async () => {
      const { res, send } = exchange();
      const delivered = send({ kind: 'drip', ms: 10 });

      expect(res.flushHeaders).toHaveBeenCalled();
      expect(res.headers['content-length']).toBe(ANSWER.text.length);
      await vi.advanceTimersByTimeAsync(30);
      expect(res.chunks.map(String)).toEqual(['{', '"', 'r']);
      await vi.advanceTimersByTimeAsync(10 * ANSWER.text.length);

      expect(await delivered).toBe(true);
      expect(res.body().toString()).toBe(ANSWER.text);
      expect(res.ended).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
      expect(res.listenerCount('close')).toBe(0);
    });

    it('when the client leaves during a drip, then the drip stops and no timer is left', async () => {
      const { res, send } = exchange();
      const delivered = send({ kind: 'drip', ms: 10 });
      await vi.advanceTimersByTimeAsync(50);

      res.close();

      expect(await delivered).toBe(false);
      expect(vi.getTimerCount()).toBe(0);
      expect(res.chunks).toHaveLength(5);
    });
  });
});
