import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FaultConfig, HUGE_DEFAULT_BYTES } from './config.js';
import { type CallFault, FaultInjector } from './fault-injector.js';

/** Just the parts of a request and response the injector touches, recording what it did. */
function exchange() {
  const socket = { destroyed: false, resetAndDestroy: vi.fn(), destroy: vi.fn() };
  socket.resetAndDestroy.mockImplementation(() => {
    socket.destroyed = true;
  });
  const req = Object.assign(new EventEmitter(), { socket, resume: vi.fn() });
  const res = Object.assign(new EventEmitter(), {
    destroyed: false,
    status: undefined as number | undefined,
    headers: {} as Record<string, unknown>,
    body: undefined as string | undefined,
    writeHead(status: number, headers: Record<string, unknown>) {
      res.status = status;
      res.headers = headers;
      return res;
    },
    end(body: string) {
      res.body = body;
      return res;
    },
    /** The client closes the connection. */
    close() {
      res.destroyed = true;
      res.emit('close');
    },
  });
  return {
    req,
    res,
    socket,
    args: [req as unknown as IncomingMessage, res as unknown as ServerResponse] as const,
  };
}

async function intercept(
  injector: FaultInjector,
  operation: 'createDraft' | 'addSignatory' = 'createDraft',
) {
  const call = exchange();
  const interception = await injector.intercept(operation, ...call.args);
  return { ...call, interception, outcome: interception.outcome };
}

describe('FaultInjector', () => {
  it('when nothing is configured, then every call continues untouched', async () => {
    const { outcome, res } = await intercept(new FaultInjector());

    expect(outcome).toBe('continue');
    expect(res.status).toBeUndefined();
  });

  it('when the next 3 createDraft calls are scripted to fail with 503, then those answer a text 503 and the 4th continues', async () => {
    const injector = new FaultInjector({
      script: [{ operation: 'createDraft', kind: 'http503', times: 3 }],
    });

    const calls = [];
    for (let i = 0; i < 4; i += 1) calls.push(await intercept(injector));

    expect(calls.map((c) => c.outcome)).toEqual(['handled', 'handled', 'handled', 'continue']);
    expect(calls[0]?.res.status).toBe(503);
    expect(calls[0]?.res.headers['content-type']).toMatch(/^text\/plain/);
    expect(calls[0]?.req.resume).toHaveBeenCalled();
  });

  it('when a call is scripted to fail with 21990001, then it answers HTTP 200 with the platform error body', async () => {
    const injector = new FaultInjector({ script: [{ kind: 'code21990001', times: 1 }] });

    const { outcome, res } = await intercept(injector, 'addSignatory');

    expect(outcome).toBe('handled');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body ?? '')).toMatchObject({ code: 21990001, responseCode: '21990001' });
  });

  it('when a call is scripted to reset, then its connection is reset without an answer', async () => {
    const { outcome, res, socket } = await intercept(
      new FaultInjector({ script: [{ kind: 'reset', times: 1 }] }),
    );

    expect(outcome).toBe('handled');
    expect(socket.resetAndDestroy).toHaveBeenCalledOnce();
    expect(res.status).toBeUndefined();
  });

  it('when the socket cannot be reset, then it is destroyed instead', async () => {
    const call = exchange();
    call.socket.resetAndDestroy.mockImplementation(() => {
      throw new Error('ERR_INVALID_HANDLE_TYPE');
    });

    await new FaultInjector({ script: [{ kind: 'reset', times: 1 }] }).intercept(
      'createDraft',
      ...call.args,
    );

    expect(call.socket.destroy).toHaveBeenCalledOnce();
  });

  it('when random rates apply, then the injected random decides each call', async () => {
    const draws = [0.05, 0.5, 0.95];
    const injector = new FaultInjector(
      {
        operations: {
          '*': { errorRate: 0.1, error: 'code21990001' },
          createDraft: { resetRate: 0.1, errorRate: 0.5 },
        },
      },
      () => draws.shift() ?? 1,
    );

    const outcomes = [
      await intercept(injector),
      await intercept(injector),
      await intercept(injector, 'addSignatory'),
    ];

    expect(outcomes.map((o) => [o.outcome, o.res.status])).toEqual([
      ['handled', undefined],
      ['handled', 503],
      ['continue', undefined],
    ]);
  });

  it('when a call is scripted to answer a maintenance page, then it answers HTML with the status given (200 by default) and the operation does not run', async () => {
    const injector = new FaultInjector({
      script: [
        { kind: 'maintenance', times: 1 },
        { kind: 'maintenance', times: 1, status: 502 },
      ],
    });

    const first = await intercept(injector);
    const second = await intercept(injector);

    expect(first.interception).toEqual({ outcome: 'handled', fault: 'maintenance' });
    expect([first.res.status, second.res.status]).toEqual([200, 502]);
    expect(first.res.headers['content-type']).toMatch(/^text\/html/);
    expect(first.res.body).toContain('<html>');
    expect(first.req.resume).toHaveBeenCalled();
  });

  it.each([
    [
      { kind: 'late', times: 1, ms: 4000 },
      { kind: 'late', ms: 4000 },
    ],
    [
      { kind: 'drip', times: 1, ms: 50 },
      { kind: 'drip', ms: 50 },
    ],
    [{ kind: 'resetAfterApply', times: 1 }, { kind: 'resetAfterApply' }],
    [{ kind: 'garbage', times: 1 }, { kind: 'garbage' }],
    [
      { kind: 'huge', times: 1, bytes: 5000 },
      { kind: 'huge', bytes: 5000 },
    ],
    [
      { kind: 'huge', times: 1 },
      { kind: 'huge', bytes: HUGE_DEFAULT_BYTES },
    ],
    [{ kind: 'unlistedValues', times: 1 }, { kind: 'normal' }],
  ] as const)(
    'when a call is scripted %j, then it runs and its answer goes out as %j',
    async (fault, delivery) => {
      const { interception, res } = await intercept(new FaultInjector({ script: [fault] }));

      expect(interception).toEqual({ outcome: 'continue', fault: fault.kind, delivery });
      expect(res.status).toBeUndefined();
    },
  );

  it.each<[string, FaultConfig, CallFault]>([
    ['a scripted reset', { script: [{ kind: 'reset', times: 1 }] }, 'reset'],
    ['a random 503', { operations: { '*': { errorRate: 1 } } }, 'http503'],
  ])('when %s acts, then the interception names it', async (_name, config, fault) => {
    const { interception } = await intercept(new FaultInjector(config, () => 0));

    expect(interception).toEqual({ outcome: 'handled', fault });
  });

  describe('with fake timers', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('when a call is scripted to hang, then it is handled with no answer, its body drained and no timer set', async () => {
      const { outcome, res, req } = await intercept(
        new FaultInjector({ script: [{ kind: 'hang', times: 1 }] }),
      );

      expect(outcome).toBe('handled');
      expect(res.status).toBeUndefined();
      expect(req.resume).toHaveBeenCalled();
      expect(vi.getTimerCount()).toBe(0);
    });

    it('when a call is scripted late or drip, then its ms is no delay before the operation', async () => {
      const injector = new FaultInjector({
        script: [
          { kind: 'late', times: 1, ms: 10_000 },
          { kind: 'drip', times: 1, ms: 10_000 },
        ],
      });

      const outcomes = [await intercept(injector), await intercept(injector)];

      expect(outcomes.map((o) => o.outcome)).toEqual(['continue', 'continue']);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('when a maintenance page has a delay, then it is answered after it', async () => {
      const call = exchange();
      const outcome = new FaultInjector({
        script: [{ kind: 'maintenance', times: 1, ms: 300, status: 503 }],
      }).intercept('createDraft', ...call.args);

      await vi.advanceTimersByTimeAsync(299);
      expect(call.res.status).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);

      expect(await outcome).toEqual({ outcome: 'handled', fault: 'maintenance' });
      expect(call.res.status).toBe(503);
    });

    it('when the client leaves during a delay, then the fault that was to act is named, else latency', async () => {
      const scripted = exchange();
      const ambient = exchange();
      const injector = new FaultInjector({
        latency: { fixedMs: 1000 },
        script: [{ operation: 'addSignatory', kind: 'http503', times: 1, ms: 500 }],
      });
      const outcomes = [
        injector.intercept('addSignatory', ...scripted.args),
        injector.intercept('createDraft', ...ambient.args),
      ];

      scripted.res.close();
      ambient.res.close();

      expect(await Promise.all(outcomes)).toEqual([
        { outcome: 'handled', fault: 'http503' },
        { outcome: 'handled', fault: 'latency' },
      ]);
      expect(scripted.res.status).toBeUndefined();
    });

    it('when latency is fixed, then the call continues only after it', async () => {
      const call = exchange();
      const outcome = new FaultInjector({ latency: { fixedMs: 200 } }).intercept(
        'createDraft',
        ...call.args,
      );
      let settled = false;
      void outcome.then(() => {
        settled = true;
      });

      await vi.advanceTimersByTimeAsync(199);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);

      expect((await outcome).outcome).toBe('continue');
    });

    it('when a scripted delay precedes a fault, then the fault acts after the delay', async () => {
      const call = exchange();
      const injector = new FaultInjector({
        latency: { fixedMs: 100 },
        script: [{ kind: 'http503', times: 1, ms: 400 }],
      });
      const outcome = injector.intercept('createDraft', ...call.args);

      await vi.advanceTimersByTimeAsync(499);
      expect(call.res.status).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);

      expect((await outcome).outcome).toBe('handled');
      expect(call.res.status).toBe(503);
    });

    it('when the client closes during the latency, then the call is handled and no timer is left', async () => {
      const call = exchange();
      const outcome = new FaultInjector({ latency: { fixedMs: 10_000 } }).intercept(
        'createDraft',
        ...call.args,
      );

      call.res.close();

      expect((await outcome).outcome).toBe('handled');
      expect(vi.getTimerCount()).toBe(0);
      expect(call.res.listenerCount('close')).toBe(0);
    });

    it('when the latency has passed, then no close listener is left behind', async () => {
      const call = exchange();
      const outcome = new FaultInjector({ latency: { minMs: 10, maxMs: 20 } }, () => 0.5).intercept(
        'createDraft',
        ...call.args,
      );

      await vi.advanceTimersByTimeAsync(15);

      expect((await outcome).outcome).toBe('continue');
      expect(call.res.listenerCount('close')).toBe(0);
    });
  });

  describe('requests per second', () => {
    it('when calls exceed the rate, then the excess answers 429 with the platform body and Retry-After', async () => {
      let now = 0;
      const injector = new FaultInjector({ requestsPerSecond: 4 }, Math.random, () => now);

      const burst = [];
      for (let i = 0; i < 5; i += 1) burst.push(await intercept(injector));
      now = 250;
      const later = await intercept(injector);

      expect(burst.map((c) => c.res.status ?? c.outcome)).toEqual([
        'continue',
        'continue',
        'continue',
        'continue',
        429,
      ]);
      expect(JSON.parse(burst[4]?.res.body ?? '')).toMatchObject({
        code: 429,
        responseCode: '00000429',
      });
      expect(burst[4]?.res.headers['retry-after']).toBe('1');
      expect(later.outcome).toBe('continue');
    });

    it('when a call is throttled, then it uses up no scripted fault', async () => {
      const injector = new FaultInjector(
        { requestsPerSecond: 1, script: [{ kind: 'http503', times: 1 }] },
        Math.random,
        () => 0,
      );

      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await intercept(injector)).res.status);

      // The bucket holds two tokens even at 1/s: the first call takes the 503, the second continues.
      expect(statuses).toEqual([503, undefined, 429]);
      expect((await intercept(injector)).interception).toEqual({
        outcome: 'handled',
        fault: 'rateLimit',
      });
      expect(injector.config.script).toEqual([]);
    });
  });

  describe('configuration', () => {
    it('when reconfigured at run time, then the new config replaces the old and the script starts over', async () => {
      const injector = new FaultInjector({
        latency: { fixedMs: 5 },
        script: [{ kind: 'reset', times: 2 }],
      });
      await intercept(injector);
      expect(injector.config.script).toEqual([{ kind: 'reset', times: 1 }]);

      const next: FaultConfig = {
        script: [{ operation: 'addSignatory', kind: 'http503', times: 1 }],
      };
      injector.configure(next);

      expect(injector.config).toEqual(next);
      expect((await intercept(injector)).outcome).toBe('continue');
    });

    it('when the config read back is changed, then the injector is not', () => {
      const injector = new FaultInjector({ operations: { '*': { errorRate: 0.5 } } });

      const config = injector.config;
      if (config.operations?.['*']) config.operations['*'].errorRate = 1;

      expect(injector.config.operations?.['*']?.errorRate).toBe(0.5);
    });

    it('when a config breaks the schema, then configure throws and keeps the old one', () => {
      const injector = new FaultInjector({ requestsPerSecond: 5 });

      expect(() => injector.configure({ operations: { '*': { errorRate: 2 } } })).toThrow();
      expect(injector.config).toEqual({ requestsPerSecond: 5 });
    });
  });
});
