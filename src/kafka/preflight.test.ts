import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { KafkaAuthenticationFailed, KafkaUnreachable } from '../errors.js';
import { kafkajsClientConfig } from './client-config.js';
import type { KafkaTlsSettings } from './client-settings.js';
import { preflight } from './preflight.js';

// A certificate for "signing-bridge unit-test client" (no host name), signed by the test CA.
const pem = (name: string) =>
  readFileSync(new URL(`../config/testdata/${name}`, import.meta.url), 'utf8');
const QUICK = { attempts: 3, initialDelayMs: 1, maxDelayMs: 1, multiplier: 2 };

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Listens on loopback; counts the connections it is offered. */
async function listen(server: Server) {
  servers.push(server);
  const seen = { connections: 0 };
  server.on('connection', () => {
    seen.connections += 1;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { broker: `127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function configFor(broker: string, tls?: KafkaTlsSettings) {
  const settings = { brokers: [broker], clientId: 'preflight-test', tls };
  return { ...kafkajsClientConfig(settings), logLevel: logLevel.NOTHING };
}

async function rejection(work: Promise<void>): Promise<unknown> {
  return work.then(
    () => expect.unreachable('the preflight passed'),
    (error: unknown) => error,
  );
}

describe('preflight', () => {
  it('when every connection is closed at once, then it gives up after its attempts with KafkaUnreachable', async () => {
    const { broker, seen } = await listen(createServer((socket) => socket.destroy()));
    const error = await rejection(preflight(configFor(broker), QUICK));
    expect(error).toBeInstanceOf(KafkaUnreachable);
    expect((error as KafkaUnreachable).details).toMatchObject({ brokers: [broker], attempts: 3 });
    expect((error as KafkaUnreachable).message).toContain('KAFKA_BROKERS');
    expect(seen.connections).toBe(3);
  });

  it("when the broker's certificate is not for the host connected to, then the first attempt fails naming KAFKA_BROKERS", async () => {
    const tls = createTlsServer({ cert: pem('client.pem'), key: pem('client-key.pem') });
    const { broker, seen } = await listen(tls);
    const error = await rejection(preflight(configFor(broker, { ca: pem('ca.pem') }), QUICK));
    expect(error).toBeInstanceOf(KafkaAuthenticationFailed);
    expect((error as KafkaAuthenticationFailed).details.reason).toBe('tls-host-name');
    expect((error as KafkaAuthenticationFailed).message).toContain('KAFKA_BROKERS');
    expect(seen.connections).toBe(1);
  });

  it("when no trusted CA signed the broker's certificate, then the first attempt fails naming KAFKA_TLS_CA_FILE", async () => {
    const tls = createTlsServer({ cert: pem('client.pem'), key: pem('client-key.pem') });
    const { broker, seen } = await listen(tls);
    const error = await rejection(preflight(configFor(broker, {}), QUICK));
    expect(error).toBeInstanceOf(KafkaAuthenticationFailed);
    expect((error as KafkaAuthenticationFailed).details.reason).toBe('tls-untrusted');
    expect((error as KafkaAuthenticationFailed).message).toContain('KAFKA_TLS_CA_FILE');
    expect(seen.connections).toBe(1);
  });
});
