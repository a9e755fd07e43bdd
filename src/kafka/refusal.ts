/**
 * Tells, from what kafkajs and Node's TLS report, a cluster that refuses this client (which no
 * retry changes) from one that does not answer yet. kafkajs reports a SASL refusal as
 * KafkaJSSASLAuthenticationError but a TLS refusal as a connection error it would retry forever;
 * both become KafkaAuthenticationFailed naming the variables to correct.
 */
import { KafkaAuthenticationFailed, type KafkaRefusalReason } from '../errors.js';

/** Node's codes for a broker certificate that no trusted CA vouches for (or no longer does). */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_REJECTED',
  'INVALID_CA',
]);
/** TLS alerts a broker sends when it refuses the client's certificate, or its absence. */
const CLIENT_CERTIFICATE_REFUSED =
  /ALERT_(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN|UNSUPPORTED_CERTIFICATE|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|ACCESS_DENIED)$/;
/** A plaintext answer to a TLS hello. */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

const ADVICE: Record<KafkaRefusalReason, { settings: readonly string[]; what: string }> = {
  'sasl-credentials': {
    settings: ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'],
    what: 'refused the SASL login: check KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE), and that the user exists for KAFKA_SASL_MECHANISM',
  },
  'sasl-mechanism': {
    settings: ['KAFKA_SASL_MECHANISM'],
    what: 'does not offer that SASL mechanism: set KAFKA_SASL_MECHANISM to one its listener enables',
  },
  'tls-untrusted': {
    settings: ['KAFKA_TLS_CA_FILE'],
    what: "sent a certificate no trusted CA signed: KAFKA_TLS_CA_FILE must hold the CA that signs the brokers' certificates",
  },
  'tls-host-name': {
    settings: ['KAFKA_BROKERS'],
    what: 'sent a certificate that does not name the host connected to: write the brokers in KAFKA_BROKERS (and in their advertised listeners) by a name their certificates hold',
  },
  'tls-client-certificate': {
    settings: ['KAFKA_TLS_CERT_FILE', 'KAFKA_TLS_KEY_FILE'],
    what: "refused this client's certificate, or its absence: set KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE to a certificate the broker trusts",
  },
  'tls-not-offered': {
    settings: ['KAFKA_TLS', 'KAFKA_BROKERS'],
    what: "does not speak TLS on that port: use its TLS listener's port in KAFKA_BROKERS, or KAFKA_TLS=false",
  },
};

interface ErrorLink {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly broker?: unknown;
  readonly cause?: unknown;
}

/** The refusal `error` reports (anywhere in its chain of causes), or undefined. */
export function refusalOf(error: unknown): KafkaAuthenticationFailed | undefined {
  let broker: string | undefined;
  let link = error as ErrorLink | undefined;
  // kafkajs wraps an error at most a few times; a cycle of causes must not loop.
  for (let depth = 0; link && depth < 8; depth += 1) {
    if (typeof link.broker === 'string') broker ??= link.broker;
    const reason = reasonOf(link);
    if (reason) return refusal(reason, broker, String(link.message).trim(), error);
    link = link.cause as ErrorLink | undefined;
  }
  return undefined;
}

function reasonOf(link: ErrorLink): KafkaRefusalReason | undefined {
  if (link.name === 'KafkaJSSASLAuthenticationError')
    return /mechanism is not supported/.test(String(link.message))
      ? 'sasl-mechanism'
      : 'sasl-credentials';
  if (typeof link.code !== 'string') return undefined;
  if (UNTRUSTED.has(link.code)) return 'tls-untrusted';
  if (link.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'tls-host-name';
  if (CLIENT_CERTIFICATE_REFUSED.test(link.code)) return 'tls-client-certificate';
  if (NOT_TLS.has(link.code)) return 'tls-not-offered';
  return undefined;
}

function refusal(
  reason: KafkaRefusalReason,
  broker: string | undefined,
  kafkaError: string,
  cause: unknown,
): KafkaAuthenticationFailed {
  const { settings, what } = ADVICE[reason];
  const who = broker ? `Kafka broker ${broker}` : 'Kafka';
  return new KafkaAuthenticationFailed(`${who} ${what} (${kafkaError})`, {
    details: { reason, broker, settings, kafkaError },
    cause,
  });
}
