import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSSASLAuthenticationError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { KafkaAuthenticationFailed } from '../errors.js';
import { refusalOf } from './refusal.js';

// kafkajs' type declarations give these no constructor arguments; its code takes them.
const SaslError = KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error;
const NonRetriable = KafkaJSNonRetriableError as unknown as new (
  error: Error,
  options: { cause: Error },
) => Error;

/** A connection error as kafkajs makes it from a socket error with Node's `code`. */
function socketError(code: string, message = 'handshake failed') {
  return new KafkaJSConnectionError(`Connection error: ${message}`, {
    broker: 'kafka-1:9093',
    code,
  });
}

/** As kafkajs' retrier hands it on once its retries are spent. */
const retriesSpent = (error: Error) =>
  new KafkaJSNumberOfRetriesExceeded(error, { retryCount: 0, retryTime: 300 });

describe('refusalOf', () => {
  it('when the SASL login fails, then the username and password are named, not the password itself', () => {
    const sasl = new SaslError('SASL SCRAM SHA512 authentication failed: invalid credentials');
    const refusal = refusalOf(new NonRetriable(sasl, { cause: sasl }));
    expect(refusal).toBeInstanceOf(KafkaAuthenticationFailed);
    expect(refusal?.code).toBe('SB_ERR_KAFKA_AUTH_FAILED');
    expect(refusal?.retryable).toBe(false);
    expect(refusal?.details.reason).toBe('sasl-credentials');
    expect(refusal?.details.settings).toEqual(['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD']);
    expect(refusal?.message).toContain('KAFKA_SASL_PASSWORD');
  });

  it('when the broker does not offer the mechanism, then KAFKA_SASL_MECHANISM is named', () => {
    const sasl = new SaslError('SASL SCRAM-SHA-512 mechanism is not supported by the server');
    expect(refusalOf(sasl)?.details).toMatchObject({
      reason: 'sasl-mechanism',
      settings: ['KAFKA_SASL_MECHANISM'],
    });
  });

  it.each([
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls-untrusted', 'KAFKA_TLS_CA_FILE'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls-untrusted', 'KAFKA_TLS_CA_FILE'],
    ['CERT_HAS_EXPIRED', 'tls-untrusted', 'KAFKA_TLS_CA_FILE'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls-host-name', 'KAFKA_BROKERS'],
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'tls-client-certificate', 'KAFKA_TLS_CERT_FILE'],
    ['ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'tls-client-certificate', 'KAFKA_TLS_CERT_FILE'],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'tls-client-certificate', 'KAFKA_TLS_CERT_FILE'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls-not-offered', 'KAFKA_TLS'],
  ])(
    'when TLS fails with %s after kafkajs retried, then it is %s naming %s and the broker',
    (code, reason, setting) => {
      const refusal = refusalOf(retriesSpent(socketError(code)));
      expect(refusal?.details.reason).toBe(reason);
      expect(refusal?.details.settings).toContain(setting);
      expect(refusal?.details.broker).toBe('kafka-1:9093');
      expect(refusal?.message).toContain(setting);
      expect(refusal?.message).toContain('kafka-1:9093');
    },
  );

  it.each([['ECONNREFUSED'], ['ECONNRESET'], ['ETIMEDOUT']])(
    'when the connection fails with %s, then it is no refusal (the broker may come back)',
    (code) => {
      expect(refusalOf(retriesSpent(socketError(code)))).toBeUndefined();
    },
  );

  it('when the error is not one of kafkajs at all, then it is no refusal', () => {
    expect(refusalOf(new Error('Closed connection'))).toBeUndefined();
    expect(refusalOf(undefined)).toBeUndefined();
    expect(refusalOf('text')).toBeUndefined();
  });

  it('when causes form a cycle, then the search still ends', () => {
    const a: { message: string; cause?: unknown } = { message: 'a' };
    a.cause = { message: 'b', cause: a };
    expect(refusalOf(a)).toBeUndefined();
  });
});
