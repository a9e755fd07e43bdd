/**
 * How to reach and log in to a Kafka cluster, whatever the entry point (the service, the SDK, an
 * operator tool): src/config reads it from the environment (`kafkaClientSettings`), and
 * createKafkaConnection turns it into the client's options in one place.
 */

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/** A certificate chain and its private key, PEM, that this client shows for mutual TLS. */
export interface ClientCertificate {
  readonly cert: string;
  readonly key: string;
  /** Decrypts `key` when it is encrypted. */
  readonly passphrase?: string | undefined;
}

/** TLS to every broker. The broker's certificate and host name are always verified. */
export interface KafkaTlsSettings {
  /** PEM certificates of the CAs trusted to sign brokers' certificates; none: Node's defaults. */
  readonly ca?: string | undefined;
  readonly clientCertificate?: ClientCertificate | undefined;
}

export interface KafkaSaslSettings {
  readonly mechanism: SaslMechanism;
  readonly username: string;
  readonly password: string;
}

export interface KafkaClientSettings {
  /** Bootstrap brokers, host:port. */
  readonly brokers: readonly string[];
  readonly clientId: string;
  /** None: plaintext connections. */
  readonly tls?: KafkaTlsSettings | undefined;
  /** None: no SASL authentication. */
  readonly sasl?: KafkaSaslSettings | undefined;
}
