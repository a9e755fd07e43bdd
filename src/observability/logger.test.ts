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

  it('when a secret is nested deeper than two levels, then it is redacted', () => {
    const { log, lines } = capture();
    log.info({ a: { b: { c: { d: { password: 'pw-deep', appSecret: 's3cret' } } } } }, 'deep');
    log.info({ items: [{ kafka: { sasl: { password: 'pw-array' } } }] }, 'array');
    expect(JSON.stringify(lines)).not.toMatch(/pw-|s3cret/);
    expect(lines[0]).toMatchObject({ a: { b: { c: { d: { password: '[redacted]' } } } } });
    expect(lines[1]).toMatchObject({ items: [{ kafka: { sasl: { password: '[redacted]' } } }] });
  });

  it('when a logged error holds a secret in its details or in a cause given as an object, then it is redacted and the error is still printed as one', () => {
    const { log, lines } = capture();
    const error = Object.assign(new Error('connection refused'), {
      details: { settings: { appSecret: 's3cret', baseUrl: 'http://x' } },
      cause: { request: { headers: { 'X-Svc-Open-Signature': 'abc123', accept: 'json' } } },
      inner: Object.assign(new Error('inner'), { details: { password: 'pw-inner' } }),
    });
    log.error({ err: error }, 'failed');
    expect(JSON.stringify(lines)).not.toMatch(/s3cret|abc123|pw-/);
    expect(lines[0]).toMatchObject({
      err: {
        type: 'Error',
        message: 'connection refused',
        stack: expect.stringContaining('connection refused'),
        details: { settings: { appSecret: '[redacted]', baseUrl: 'http://x' } },
        cause: {
          request: { headers: { 'X-Svc-Open-Signature': '[redacted]', accept: 'json' } },
        },
        inner: { message: 'inner', details: { password: '[redacted]' } },
      },
    });
  });

  it('when an error with a secret is logged under another key, as the first argument or in a child binding, then it is redacted', () => {
    const { log, lines } = capture();
    const error = Object.assign(new Error('refused'), { details: { password: 'pw-other' } });
    log.warn({ reason: error }, 'other key');
    log.error(Object.assign(new Error('first'), { details: { appToken: 't0ken' } }));
    log.child({ kafka: { sasl: { password: 'pw-child' } } }).info('child');
    expect(JSON.stringify(lines)).not.toMatch(/pw-|t0ken/);
    expect(lines[0]).toMatchObject({ reason: { details: { password: '[redacted]' } } });
    expect(lines[1]).toMatchObject({
      err: { message: 'first', details: { appToken: '[redacted]' } },
    });
    expect(lines[2]).toMatchObject({ kafka: { sasl: { password: '[redacted]' } }, msg: 'child' });
  });

  it('when an object is interpolated into the message, or has a JSON form of its own, then its secrets are redacted', () => {
    const { log, lines } = capture();
    log.info('settings %j', { password: 'pw-interpolated' });
    log.info({ a: 1 }, 'settings %o', { sasl: { password: 'pw-object' } });
    log.info({ summary: { toJSON: () => ({ SIGNING_APP_SECRET: 's3cret' }) } }, 'summary');
    expect(JSON.stringify(lines)).not.toMatch(/pw-|s3cret/);
    expect(lines[2]).toMatchObject({ summary: { SIGNING_APP_SECRET: '[redacted]' } });
  });

  it('when an object is logged, then the caller keeps it as it was', () => {
    const { log } = capture();
    const settings = { kafka: { sasl: { password: 'pw' } }, when: new Date(0) };
    log.info(settings, 'settings');
    expect(settings).toEqual({ kafka: { sasl: { password: 'pw' } }, when: new Date(0) });
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
