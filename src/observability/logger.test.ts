import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const log = createLogger({ level: 'info', headerPrefix: 'x-svc-open-' }, stream);
  return { log, lines };
}

describe('createLogger', () => {
  it('when an object holding the app secret or token is logged, then their values are redacted', () => {
    const { log, lines } = capture();
    log.info(
      { options: { appSecret: 's3cret', appToken: 't0ken', baseUrl: 'http://x' } },
      'client',
    );
    log.info({ config: { SIGNING_APP_SECRET: 's3cret', KAFKA_BROKERS: ['k:9092'] } }, 'config');
    const text = JSON.stringify(lines);
    expect(text).not.toMatch(/s3cret|t0ken/);
    expect(lines[0]).toMatchObject({ options: { appSecret: '[redacted]', baseUrl: 'http://x' } });
    expect(lines[1]).toMatchObject({ config: { KAFKA_BROKERS: ['k:9092'] } });
  });

  it('when Kafka client settings are logged, then the SASL and key passwords are redacted', () => {
    const { log, lines } = capture();
    const sasl = { mechanism: 'scram-sha-512', username: 'bridge', password: 'pw-sasl' };
    const clientCertificate = { cert: 'c', key: 'k', passphrase: 'pw-key' };
    log.info({ kafka: { sasl, clientCertificate } }, 'settings');
    log.info({ config: { KAFKA_SASL_PASSWORD: 'pw-env', KAFKA_TLS_KEY_PASSWORD: 'pw-env2' } }, 'c');
    expect(JSON.stringify(lines)).not.toMatch(/pw-/);
    expect(lines[0]).toMatchObject({ kafka: { sasl: { username: 'bridge' } } });
  });

  it('when request headers are logged, then the signature and access token are redacted', () => {
    const { log, lines } = capture();
    const headers = {
      'x-svc-open-signature': 'abc123',
      'x-svc-open-accesstoken': 'tok',
      'x-svc-open-timestamp': '1700000000000',
    };
    log.info({ request: { headers } }, 'call');
    expect(lines[0]).toMatchObject({
      request: {
        headers: {
          'x-svc-open-signature': '[redacted]',
          'x-svc-open-accesstoken': '[redacted]',
          'x-svc-open-timestamp': '1700000000000',
        },
      },
    });
  });

  it('when a child logger carries command ids, then every line of it has them', () => {
    const { log, lines } = capture();
    log.child({ commandId: 'c-1', bizId: 'b-1', type: 'remind' }).info('done');
    expect(lines[0]).toMatchObject({ commandId: 'c-1', bizId: 'b-1', type: 'remind', msg: 'done' });
  });
});

describe('personal data in log lines', () => {
  it('when an error quoting a mobile number and an e-mail address is logged, then its message, stack and details are masked and its ids kept', () => {
    const { log, lines } = capture();
    const error = Object.assign(new Error('no active employee has MOBILE "13912345678"'), {
      details: {
        contractId: '3141592653589793239',
        platformMessage: 'receiver li.lei@demo.example not found',
      },
    });
    log.error({ err: error }, 'command failed for 13912345678');
    const text = JSON.stringify(lines);
    expect(text).not.toMatch(/13912345678|li\.lei@demo\.example/);
    expect(lines[0]).toMatchObject({
      msg: 'command failed for [number]',
      err: {
        message: 'no active employee has MOBILE "[number]"',
        details: {
          contractId: '3141592653589793239',
          platformMessage: 'receiver [email] not found',
        },
      },
    });
    const err = lines[0]?.err as { stack?: string } | undefined;
    expect(err?.stack).toContain('MOBILE "[number]"');
  });
});
