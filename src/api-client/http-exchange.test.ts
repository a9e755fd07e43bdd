/**
 * Against real local sockets, because "was the request written?" is a property of the socket
 * that a mock cannot show.
 */
import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { errors, Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnswerTooLarge,
  BoundedBody,
  ExchangeFailed,
  exchange,
  isHeaderName,
} from './http-exchange.js';

const servers: Server[] = [];
const pools: Pool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.destroy()));
  for (const server of servers.splice(0)) server.close();
});

/** A raw TCP server; `onRequest` runs once the whole request (headers and body) has arrived. */
async function serve(onRequest: (socket: Socket) => void): Promise<string> {
  const server = createServer((socket) => {
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? 0);
      if (end >= 0 && received.length >= end + 4 + length) onRequest(socket);
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function post(
  origin: string,
  options: {
    headersTimeoutMs?: number;
    bodyTimeoutMs?: number;
    signal?: AbortSignal;
    maxResponseBytes?: number;
  } = {},
) {
  const pool = new Pool(origin);
  pools.push(pool);
  return exchange(pool, {
    origin,
    path: '/v2/contract/send',
    headers: {},
    body: '{"bizId":"b"}',
    maxResponseBytes: 1024,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<ExchangeFailed> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExchangeFailed);
  return error as ExchangeFailed;
}

describe('exchange', () => {
  it('when the server answers, then status and body come back', async () => {
    const body = '{"code":441}';
    const origin = await serve((socket) =>
      socket.end(`HTTP/1.1 441 Auth\r\ncontent-length: ${body.length}\r\n\r\n${body}`),
    );
    await expect(post(origin)).resolves.toEqual({ statusCode: 441, body });
  });

  it('when the answer has a content type, then it comes back with it', async () => {
    const body = '<html>bad gateway</html>';
    const origin = await serve((socket) =>
      socket.end(
        `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      ),
    );
    await expect(post(origin)).resolves.toEqual({
      statusCode: 200,
      body,
      contentType: 'text/html',
    });
  });

  it('when the content-length is over the limit, then it fails at the headers as too large', async () => {
    const origin = await serve((socket) =>
      socket.write(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1025\r\n\r\n{',
      ),
    );
    const error = await post(origin).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerTooLarge);
    expect(error).toMatchObject({
      limitBytes: 1024,
      statusCode: 200,
      contentType: 'application/json',
    });
  });

  it('when a chunked body passes the limit, then it fails as too large', async () => {
    const origin = await serve((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      socket.write(`400\r\n${'a'.repeat(1024)}\r\n`);
      socket.write('1\r\na\r\n');
    });
    const error = await post(origin).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerTooLarge);
  });

  it('when nothing listens, then it fails as not sent with ECONNREFUSED', async () => {
    const origin = await serve(() => {});
    const server = servers.pop();
    server?.close();
    if (server) await once(server, 'close');
    const error = await failure(post(origin));
    expect(error.requestSent).toBe(false);
    expect(JSON.stringify(error.cause, ['code', 'errors'])).toContain('ECONNREFUSED');
  });

  it('when the server closes the connection after reading the request, then it was sent', async () => {
    const origin = await serve((socket) => socket.destroy());
    const error = await failure(post(origin));
    expect(error.requestSent).toBe(true);
    expect(error.cause).toBeInstanceOf(errors.SocketError);
  });

  it('when the headers do not come in time, then it was sent and the cause is the headers timeout', async () => {
    const origin = await serve(() => {});
    const error = await failure(post(origin, { headersTimeoutMs: 100 }));
    expect(error.requestSent).toBe(true);
    expect(error.cause).toBeInstanceOf(errors.HeadersTimeoutError);
  });

  it('when the body stalls, then it was sent and the cause is the body timeout', async () => {
    const origin = await serve((socket) =>
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{"co'),
    );
    const error = await failure(post(origin, { bodyTimeoutMs: 100 }));
    expect(error.requestSent).toBe(true);
    expect(error.cause).toBeInstanceOf(errors.BodyTimeoutError);
  });

  it('when the caller aborts while waiting, then it settles at once with the reason', async () => {
    const controller = new AbortController();
    // The server has the whole request and never answers: the caller aborts then.
    const origin = await serve(() => controller.abort(new Error('shutting down')));
    const error = await failure(post(origin, { signal: controller.signal }));
    expect(error.requestSent).toBe(true);
    expect((error.cause as Error).message).toBe('shutting down');
  });
});

describe('BoundedBody', () => {
  it('when chunks fill it exactly, then it keeps them all; one byte more is refused and not kept', () => {
    const body = new BoundedBody(4);
    expect(body.add(Buffer.from('ab'))).toBe(true);
    expect(body.add(Buffer.from('cd'))).toBe(true);
    expect(body.add(Buffer.from('e'))).toBe(false);
    expect(body.bytes).toBe(4);
    expect(body.text()).toBe('abcd');
  });

  it('when a multi-byte character is split across chunks, then the text is whole', () => {
    const bytes = Buffer.from('合同', 'utf8');
    const body = new BoundedBody(16);
    body.add(bytes.subarray(0, 2));
    body.add(bytes.subarray(2));
    expect(body.text()).toBe('合同');
  });
});

describe('isHeaderName', () => {
  // A header name is a token: these characters, in any case.
  const tokenChar = fc.constantFrom(
    ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-!#$%&'*+.^_`|~",
  );
  const near = fc.oneof(
    fc.constantFrom('retry-after', 'content-type', 'content-length'),
    fc.string({ unit: tokenChar, minLength: 10, maxLength: 15 }),
  );
  // What it is asked about: lower-case letters and '-'.
  const lowerName = fc.oneof(
    fc.constantFrom('retry-after', 'content-type', 'content-length'),
    fc.string({
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz-'),
      minLength: 10,
      maxLength: 15,
    }),
  );

  it('when a name is compared as bytes or as text with a name of lower-case letters and -, then it matches exactly when its lower case is that name', () => {
    const numRuns = 100;
    const verdicts = { match: 0, differ: 0 };
    const cases = fc.array(fc.boolean(), { maxLength: 15 });
    // The name is the one asked about, in any case, in half the runs: two names drawn apart
    // matched in about one run in twelve.
    fc.assert(
      fc.property(near, cases, lowerName, fc.boolean(), (other, upper, lower, itself) => {
        const base = itself ? lower : other;
        const name = [...base].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
        const expected = name.toLowerCase() === lower;
        expect(isHeaderName(name, lower)).toBe(expected);
        expect(isHeaderName(Buffer.from(name, 'latin1'), lower)).toBe(expected);
        verdicts[expected ? 'match' : 'differ']++;
      }),
      { numRuns },
    );
    expect(verdicts.match).toBeGreaterThan(numRuns / 10);
    expect(verdicts.differ).toBeGreaterThan(numRuns / 10);
  });

  it('when the answer names its headers in upper case, then their values are read', async () => {
    const origin = await serve((socket) =>
      socket.end(
        'HTTP/1.1 429 Too Many Requests\r\nCONTENT-TYPE: text/plain\r\nRetry-After: 3\r\nContent-Length: 2\r\n\r\nno',
      ),
    );
    await expect(post(origin)).resolves.toEqual({
      statusCode: 429,
      body: 'no',
      retryAfter: '3',
      contentType: 'text/plain',
    });
  });
});
