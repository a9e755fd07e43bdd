import { SASL_MECHANISMS } from '../../kafka/client-settings.js';
import { optional, secretFile, secretText, textFile } from '../file-values.js';
import { flag, oneOf, text } from '../parsers.js';
import type { Variable } from '../variable.js';

/** TLS and SASL towards the brokers; src/config/kafka-checks.ts holds the rules between them. */
export const KAFKA_SECURITY = [
  {
    name: 'KAFKA_TLS',
    group: 'Kafka',
    schema: flag,
    default: 'false',
    description:
      "Connect to every broker over TLS. Each broker's certificate and host name (as KAFKA_BROKERS and the brokers' advertised listeners name it) are always verified.",
  },
  {
    name: 'KAFKA_TLS_CA_FILE',
    group: 'Kafka',
    schema: optional(textFile),
    default: '',
    description:
      "PEM file of the CA certificates that sign the brokers' certificates. Empty: Node's default CAs.",
  },
  {
    name: 'KAFKA_TLS_CERT_FILE',
    group: 'Kafka',
    schema: optional(textFile),
    default: '',
    description:
      "Mutual TLS: PEM file of this client's certificate (chain), with KAFKA_TLS_KEY_FILE. Empty: no client certificate.",
  },
  {
    name: 'KAFKA_TLS_KEY_FILE',
    group: 'Kafka',
    schema: optional(textFile),
    default: '',
    description:
      "Mutual TLS: PEM file of the private key of KAFKA_TLS_CERT_FILE's certificate, possibly encrypted. Its content is never logged.",
  },
  {
    name: 'KAFKA_TLS_KEY_PASSWORD',
    group: 'Kafka',
    schema: optional(secretText),
    default: '',
    secret: true,
    description:
      'Password of an encrypted KAFKA_TLS_KEY_FILE. Set this or KAFKA_TLS_KEY_PASSWORD_FILE.',
  },
  {
    name: 'KAFKA_TLS_KEY_PASSWORD_FILE',
    group: 'Kafka',
    schema: optional(secretFile),
    default: '',
    description:
      'File holding the password of KAFKA_TLS_KEY_FILE (a mounted Secret, say; one final line break is ignored). Its content is never logged.',
  },
  {
    name: 'KAFKA_SASL_MECHANISM',
    group: 'Kafka',
    schema: oneOf(['none', ...SASL_MECHANISMS]),
    default: 'none',
    description:
      'SASL authentication: none, plain, scram-sha-256 or scram-sha-512. plain sends the password as is: use it with KAFKA_TLS only.',
  },
  {
    name: 'KAFKA_SASL_USERNAME',
    group: 'Kafka',
    schema: optional(text),
    default: '',
    description: 'SASL user name; required with a KAFKA_SASL_MECHANISM.',
  },
  {
    name: 'KAFKA_SASL_PASSWORD',
    group: 'Kafka',
    schema: optional(secretText),
    default: '',
    secret: true,
    description:
      'SASL password, taken exactly as set; required with a KAFKA_SASL_MECHANISM. Set this or KAFKA_SASL_PASSWORD_FILE.',
  },
  {
    name: 'KAFKA_SASL_PASSWORD_FILE',
    group: 'Kafka',
    schema: optional(secretFile),
    default: '',
    description:
      'File holding the SASL password (a mounted Secret, say; one final line break is ignored). Its content is never logged.',
  },
] as const satisfies readonly Variable[];
