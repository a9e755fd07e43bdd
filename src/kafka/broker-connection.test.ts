import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BrokerConnection, BrokerConnectionError } from './broker-connection.js';
import { Reader, Writer } from './wire.js';

let server: Server | undefined;
afterEach(() => server?.close());

/** A broker stand-in: `answer` is given each request (api key, correlation id) and the socket. */
async function broker(
  answer: (request: { apiKey: number; correlation: number }, socket: Socket) => void,
) {
  server = createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const frame = new Reader(pending.subarray(4, 4 + pending.readInt32BE(0)));
        pending = pending.subarray(4 + pending.readInt32BE(0));
        const apiKey = frame.int16();
        frame.int16();
        answer({ apiKey, correlation: frame.int32() }, socket);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return BrokerConnection.open('127.0.0.1', port, { brokers: [], clientId: 'test' });
}

/** An answer as a broker frames it: its size, the correlation id, then the body. */
function frame(correlation: number, body: Buffer): Buffer {
  return new Writer().blob(new Writer().int32(correlation).blob(body).bytes()).bytes();
}

describe('a connection of its own to a broker', () => {
  it('when answers come in any order and split anywhere, then each request gets its own', async () => {
    const held: Array<{ correlation: number; socket: Socket }> = [];
    const connection = await broker((request, socket) => {
      held.push({ correlation: request.correlation, socket });
      if (held.length < 2) return;
      // Both answers at once, the second first, cut into three-byte pieces.
      const bytes = Buffer.concat(
        held
          .reverse()
          .map(({ correlation }) => frame(correlation, Buffer.from(`answer ${correlation}`))),
      );
      for (let at = 0; at < bytes.length; at += 3) socket.write(bytes.subarray(at, at + 3));
    });
    const [first, second] = await Promise.all([
      connection.request(1, 11, Buffer.from('a')),
      connection.request(1, 11, Buffer.from('b')),
    ]);
    expect(new Reader(first).blob().toString()).toBe('answer 1');
    expect(new Reader(second).blob().toString()).toBe('answer 2');
    connection.close();
  });

  it('when the broker answers something that is not a frame of the protocol, then every request under way fails and the connection is broken', async () => {
    const connection = await broker((_, socket) =>
      socket.write(Buffer.from([0x7f, 0xff, 0xff, 0xff, 1, 2])),
    );
    await expect(connection.request(1, 11, Buffer.alloc(0))).rejects.toBeInstanceOf(
      BrokerConnectionError,
    );
    expect(connection.broken).toBe(true);
    await expect(connection.request(1, 11, Buffer.alloc(0))).rejects.toThrow(
      /not Kafka's protocol/,
    );
  });

  it('when nothing listens, then opening fails saying where', async () => {
    await expect(
      BrokerConnection.open('127.0.0.1', 1, { brokers: [], clientId: 'test' }),
    ).rejects.toThrow(/^127\.0\.0\.1:1: /);
  });
});
