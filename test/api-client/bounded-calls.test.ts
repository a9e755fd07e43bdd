/**
 * Every platform call is bounded, against a real HTTP server that misbehaves on purpose (no
 * mock of undici): one deadline from asking for a connection to the last byte, requests signed
 * as they leave, answers read up to a size, and only what was never sent resent by the client.
 * Tests wait for facts (an arrival, a closed connection); none asserts how long anything took.
 */
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CallInfo,
  SigningClient,
  type SigningClientOptions,
} from '../../src/api-client/index.js';
import {
  OutcomeUnknown,
  type PlatformRejected,
  RequestNotSent,
  ResponseTooLarge,
  UnexpectedHttpStatus,
} from '../../src/errors.js';
import { DEMO_CREDENTIALS, rejection } from './helpers.js';
import {
  type Answer,
  drip,
  flood,
  type MisbehavingServer,
  misbehavingServer,
  successOf,
} from './misbehaving-server.js';

const servers: MisbehavingServer[] = [];
const closing: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(closing.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function serve(answer: Answer): Promise<MisbehavingServer> {
  const server = await misbehavingServer(answer);
  servers.push(server);
  return server;
}

/** A client of its own pool (as many connections as `maxConcurrentRequests`), every attempt recorded. */
function clientOf(url: string, options: Partial<SigningClientOptions> = {}) {
  const calls: CallInfo[] = [];
  const client = new SigningClient({
    baseUrl: url,
    ...DEMO_CREDENTIALS,
    requestsPerSecond: 0,
    retry: { initialDelayMs: 1, maxDelayMs: 5 },
    onCall: (info) => calls.push(info),
    ...options,
  });
  closing.push(client);
  return { client, calls };
}

const remind = (client: SigningClient, bizId: string) => client.remindSignatories({ bizId });

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('one deadline from asking for a connection to the last byte', () => {
  it('when the body drips in well within the deadline, then the call completes', async () => {
    const server = await serve((_, res) => drip(res, successOf(), 10));
    const { client } = clientOf(server.url, {
      maxConcurrentRequests: 1,
      timeouts: { callMs: 20_000 },
    });
    await expect(remind(client, 'drip-under')).resolves.toBeUndefined();
  });

  it('when the body drips past the deadline, then the call fails as an unknown outcome and the connection is freed for the next call', async () => {
    // A byte every 200 ms: undici's bodyTimeout, restarted by every chunk, would never fire.
    const server = await serve((arrival, res) =>
      arrival.bizId === 'drip-over' ? drip(res, successOf(), 200) : res.end(successOf()),
    );
    const { client, calls } = clientOf(server.url, {
      maxConcurrentRequests: 1,
      timeouts: { callMs: 1_000 },
    });
    const error = await rejection(remind(client, 'drip-over'));
    expect(error).toBeInstanceOf(OutcomeUnknown);
    expect((error as OutcomeUnknown).details).toMatchObject({
      bizId: 'drip-over',
      reason: 'CALL_DEADLINE_EXCEEDED',
      deadlineMs: 1_000,
    });
    // Sent, so never resent by the client.
    expect(calls).toHaveLength(1);
    // The server saw its connection go before its answer was finished...
    expect(await (await server.arrivalOf('drip-over')).closedEarly).toBe(true);
    // ...and the client's only connection serves the next call.
    await expect(remind(client, 'after-drip')).resolves.toBeUndefined();
  });

  it('when the headers never come, then the call fails at its deadline as an unknown outcome', async () => {
    const server = await serve(() => {});
    const { client } = clientOf(server.url, { timeouts: { callMs: 500 } });
    const error = await rejection(remind(client, 'silent'));
    expect(error).toBeInstanceOf(OutcomeUnknown);
    expect((error as OutcomeUnknown).details.reason).toBe('CALL_DEADLINE_EXCEEDED');
    expect(await (await server.arrivalOf('silent')).closedEarly).toBe(true);
  });

  it('when a request waits behind the only connection, held by a slow answer, past its deadline, then it fails as not sent and never arrives', async () => {
    const holder = gate();
    const server = await serve((arrival, res) => {
      if (arrival.bizId === 'holder') holder.opened.then(() => res.end(successOf()));
      else res.end(successOf());
    });
    // One connection shared by two clients: the second one's request waits for it in the pool.
    const pool = new Pool(server.url, { connections: 1 });
    closing.push(pool);
    const slow = clientOf(server.url, { dispatcher: pool, timeouts: { callMs: 30_000 } });
    const { client, calls } = clientOf(server.url, {
      dispatcher: pool,
      timeouts: { callMs: 500 },
      retry: { maxAttempts: 1 },
    });
    const held = remind(slow.client, 'holder');
    await server.arrivalOf('holder');
    const error = await rejection(remind(client, 'queued'));
    expect(error).toBeInstanceOf(RequestNotSent);
    expect((error as RequestNotSent).details).toMatchObject({
      bizId: 'queued',
      reason: 'CALL_DEADLINE_EXCEEDED',
      deadlineMs: 500,
    });
    expect(calls.map((c) => c.error?.code)).toEqual(['SB_ERR_TRANSPORT_NOT_SENT']);
    holder.open();
    await held;
    // The connection is free again; the request given up was never written to it.
    await remind(client, 'after');
    expect(server.arrivals.map((a) => a.bizId)).toEqual(['holder', 'after']);
  });

  it('when a request waits for the client’s only slot and the slow answer ends in time, then it goes and succeeds', async () => {
    const holder = gate();
    const server = await serve((arrival, res) => {
      if (arrival.bizId === 'holder') holder.opened.then(() => res.end(successOf()));
      else res.end(successOf());
    });
    const { client, calls } = clientOf(server.url, {
      maxConcurrentRequests: 1,
      timeouts: { callMs: 30_000 },
    });
    const held = remind(client, 'holder');
    await server.arrivalOf('holder');
    const queued = remind(client, 'queued');
    const queuedArrived = server.arrivalOf('queued');
    holder.open();
    await Promise.all([held, queued, queuedArrived]);
    expect(server.arrivals.map((a) => a.bizId)).toEqual(['holder', 'queued']);
    const waited = calls.find((c) => c.bizId === 'queued');
    expect(waited?.slotWaitMs).toEqual(expect.any(Number));
  });
});

describe('signed as it leaves, not as it queues', () => {
  it('when a request waited for the only slot, then its timestamp is taken once the slot was freed', async () => {
    const holder = gate();
    let holderAnsweredAt = Number.POSITIVE_INFINITY;
    const server = await serve((arrival, res) => {
      if (arrival.bizId !== 'holder') return void res.end(successOf());
      holder.opened.then(() => {
        holderAnsweredAt = Date.now();
        res.end(successOf());
      });
    });
    const { client } = clientOf(server.url, {
      maxConcurrentRequests: 1,
      timeouts: { callMs: 30_000 },
    });
    const held = remind(client, 'holder');
    const holderArrival = await server.arrivalOf('holder');
    const queued = remind(client, 'queued');
    holder.open();
    await Promise.all([held, queued]);
    const queuedArrival = await server.arrivalOf('queued');
    // Signed at dispatch: not earlier than the answer that freed its slot was finished.
    expect(queuedArrival.timestamp).toBeGreaterThanOrEqual(holderAnsweredAt);
    expect(queuedArrival.timestamp).toBeGreaterThanOrEqual(holderArrival.timestamp);
    expect(queuedArrival.timestamp).toBeLessThanOrEqual(queuedArrival.arrivedAt);
  });
});

describe('an answer no larger than maxResponseBytes', () => {
  const LIMIT = 4_096;

  it.each([
    ['with a content-length', true],
    ['chunked, without one', false],
  ])('when the answer is exactly the limit %s, then it is read', async (_, withLength) => {
    const server = await serve((_arrival, res) => {
      const body = successOf(LIMIT);
      if (withLength) return void res.end(body);
      // Chunked: several writes, no content-length.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(body.slice(0, 1_000));
      res.write(body.slice(1_000, 3_000));
      res.end(body.slice(3_000));
    });
    const { client } = clientOf(server.url, { maxResponseBytes: LIMIT });
    await expect(remind(client, 'exact')).resolves.toBeUndefined();
  });

  it.each([
    ['with a content-length', true],
    ['chunked, without one', false],
  ])(
    'when the answer is one byte over the limit %s, then it fails as too large and is not resent',
    async (_, withLength) => {
      const server = await serve((_arrival, res) => {
        const body = successOf(LIMIT + 1);
        if (withLength) return void res.end(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(body.slice(0, 2_000));
        res.end(body.slice(2_000));
      });
      const { client, calls } = clientOf(server.url, { maxResponseBytes: LIMIT });
      const error = await rejection(remind(client, 'over'));
      expect(error).toBeInstanceOf(ResponseTooLarge);
      expect((error as ResponseTooLarge).code).toBe('SB_ERR_RESPONSE_TOO_LARGE');
      expect((error as ResponseTooLarge).retryable).toBe(false);
      expect((error as ResponseTooLarge).details).toEqual({
        operation: 'remindSignatories',
        bizId: 'over',
        contractId: undefined,
        limitBytes: LIMIT,
        httpStatus: 200,
      });
      expect(calls.map((c) => [c.httpStatus, c.error?.code])).toEqual([
        [200, 'SB_ERR_RESPONSE_TOO_LARGE'],
      ]);
      expect(server.arrivals).toHaveLength(1);
    },
  );

  it.each([
    ['chunked', false],
    ['declared by its content-length', true],
  ])(
    'when a 100 MB answer comes (%s), then it fails without the process growing by anything like 100 MB, and its connection is closed',
    async (_, declared) => {
      const HUNDRED_MB = 100 * 1024 * 1024;
      let written: Promise<number> = Promise.resolve(0);
      const server = await serve((_arrival, res) => {
        written = flood(res, HUNDRED_MB, declared);
      });
      // The default limit: 1 MiB.
      const { client } = clientOf(server.url);
      const before = process.memoryUsage().rss;
      const error = await rejection(remind(client, 'huge'));
      const grownBytes = process.memoryUsage().rss - before;
      expect(error).toBeInstanceOf(ResponseTooLarge);
      expect((error as ResponseTooLarge).details.limitBytes).toBe(1024 * 1024);
      expect(grownBytes).toBeLessThan(50 * 1024 * 1024);
      // The client stopped reading: the server's connection went before it had written it all.
      expect(await (await server.arrivalOf('huge')).closedEarly).toBe(true);
      expect(await written).toBeLessThan(HUNDRED_MB);
    },
  );
});

describe('the client resends only what was never sent', () => {
  it.each([
    [
      'HTTP 502 from a proxy',
      (res: Parameters<Answer>[1]) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html>bad gateway</html>');
      },
    ],
    [
      'HTTP 503',
      (res: Parameters<Answer>[1]) => {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('unavailable');
      },
    ],
  ])('when the answer is %s, then the server sees exactly one request', async (_, answer) => {
    const server = await serve((_arrival, res) => answer(res));
    const { client, calls } = clientOf(server.url);
    const error = await rejection(remind(client, 'status'));
    expect(error).toBeInstanceOf(UnexpectedHttpStatus);
    // Still retryable for the caller, who can reconcile; the content type says who answered.
    expect((error as UnexpectedHttpStatus).retryable).toBe(true);
    expect((error as UnexpectedHttpStatus).details.contentType).toMatch(/^text\//);
    expect(calls).toHaveLength(1);
    expect(server.arrivals).toHaveLength(1);
  });

  it('when the platform answers 21990001, then the server sees exactly one request', async () => {
    const server = await serve((_arrival, res) =>
      res.end('{"responseCode":"21990001","message":"internal error"}'),
    );
    const { client } = clientOf(server.url);
    const error = await rejection(remind(client, 'transient'));
    expect((error as PlatformRejected).details).toMatchObject({
      platformCode: '21990001',
      family: 'transient',
    });
    expect(server.arrivals).toHaveLength(1);
  });

  it('when the platform throttles once (429), then the request is sent again and succeeds', async () => {
    const server = await serve((_arrival, res) => {
      if (server.arrivals.length > 1) return void res.end(successOf());
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end('{"code":429,"message":"too many requests"}');
    });
    const { client } = clientOf(server.url);
    await expect(remind(client, 'throttled')).resolves.toBeUndefined();
    expect(server.arrivals).toHaveLength(2);
  });

  it('when the connection is refused, then the request is tried again, up to maxAttempts', async () => {
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, 'close');
    const { client, calls } = clientOf(`http://127.0.0.1:${port}`, {
      retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5 },
    });
    const error = await rejection(remind(client, 'refused'));
    expect(error).toBeInstanceOf(RequestNotSent);
    expect((error as RequestNotSent).details.reason).toBe('ECONNREFUSED');
    expect(calls.map((c) => [c.attempt, c.error?.code])).toEqual([
      [0, 'SB_ERR_TRANSPORT_NOT_SENT'],
      [1, 'SB_ERR_TRANSPORT_NOT_SENT'],
      [2, 'SB_ERR_TRANSPORT_NOT_SENT'],
    ]);
  });
});
