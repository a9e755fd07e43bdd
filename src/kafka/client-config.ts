/**
 * KafkaClientSettings as kafkajs options: the one place TLS and SASL reach the client, so every
 * connection of every entry point is made the same way.
 */
import type { ConnectionOptions } from 'node:tls';
import type { KafkaConfig, SASLOptions } from 'kafkajs';
import type {
  KafkaClientSettings,
  KafkaSaslSettings,
  KafkaTlsSettings,
} from './client-settings.js';

export function kafkajsClientConfig(
  settings: KafkaClientSettings,
): Pick<KafkaConfig, 'clientId' | 'ssl' | 'sasl'> & { brokers: string[] } {
  return {
    brokers: [...settings.brokers],
    clientId: settings.clientId,
    ssl: settings.tls && tlsOptions(settings.tls),
    sasl: settings.sasl && saslOptions(settings.sasl),
  };
}

/**
 * Verification is never turned off: Node checks the chain against `ca` (or its default CAs) and
 * the host name against the certificate, for the bootstrap brokers and the advertised ones.
 */
function tlsOptions(tls: KafkaTlsSettings): ConnectionOptions {
  const client = tls.clientCertificate;
  return {
    rejectUnauthorized: true,
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(client === undefined
      ? {}
      : { cert: client.cert, key: client.key, passphrase: client.passphrase }),
  };
}

/** A copy: kafkajs stores its authenticator on the object it is given. */
function saslOptions({ mechanism, username, password }: KafkaSaslSettings): SASLOptions {
  return { mechanism, username, password };
}
