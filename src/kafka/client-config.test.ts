import { describe, expect, it } from 'vitest';
import { kafkajsClientConfig } from './client-config.js';

const BASE = { brokers: ['kafka-1:9093', 'kafka-2:9093'], clientId: 'signing-bridge' };

describe('kafkajsClientConfig', () => {
  it('when neither TLS nor SASL is set, then connections are plaintext without a login', () => {
    const config = kafkajsClientConfig(BASE);
    expect(config).toEqual({ ...BASE, ssl: undefined, sasl: undefined });
  });

  it('when TLS is on without files, then Node verifies against its default CAs', () => {
    const { ssl } = kafkajsClientConfig({ ...BASE, tls: {} });
    expect(ssl).toEqual({ rejectUnauthorized: true });
  });

  it('when a CA and a client certificate are set, then both are passed and verification stays on', () => {
    const clientCertificate = { cert: 'CERT', key: 'KEY', passphrase: 'pass' };
    const { ssl } = kafkajsClientConfig({ ...BASE, tls: { ca: 'CA', clientCertificate } });
    expect(ssl).toEqual({
      rejectUnauthorized: true,
      ca: 'CA',
      cert: 'CERT',
      key: 'KEY',
      passphrase: 'pass',
    });
    // Host names are checked by Node's default checkServerIdentity: nothing replaces it.
    expect(ssl).not.toHaveProperty('checkServerIdentity');
  });

  it('when SASL is set, then kafkajs gets a copy of mechanism, username and password', () => {
    const sasl = { mechanism: 'scram-sha-512', username: 'bridge', password: 'pw' } as const;
    const config = kafkajsClientConfig({ ...BASE, sasl });
    expect(config.sasl).toEqual(sasl);
    expect(config.sasl).not.toBe(sasl);
  });
});
