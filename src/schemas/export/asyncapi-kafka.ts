/**
 * The Kafka side of the AsyncAPI document: how to connect (servers and security schemes, named
 * by the settings that choose them) and how each topic is configured (channel bindings).
 */
import {
  DEFAULT_TOPIC_PARTITIONS,
  RECOMMENDED_REPLICAS,
  TOPIC_CONFIGS,
  type TopicRole,
} from '../messages/topic-settings.js';
import type { JsonSchema } from './json-schemas.js';

export const KAFKA_BINDING_VERSION = '0.5.0';

const scheme = (name: string) => ({ $ref: `#/components/securitySchemes/${name}` });

export const SECURITY_SCHEMES = {
  clientCertificate: {
    type: 'X509',
    description:
      'Mutual TLS: KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE (KAFKA_TLS_KEY_PASSWORD or KAFKA_TLS_KEY_PASSWORD_FILE for an encrypted key), with KAFKA_TLS=true.',
  },
  saslPlain: {
    type: 'plain',
    description:
      'KAFKA_SASL_MECHANISM=plain with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE).',
  },
  saslScramSha256: {
    type: 'scramSha256',
    description:
      'KAFKA_SASL_MECHANISM=scram-sha-256 with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE).',
  },
  saslScramSha512: {
    type: 'scramSha512',
    description:
      'KAFKA_SASL_MECHANISM=scram-sha-512 with KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE).',
  },
} as const;

const bootstrap = {
  bootstrap: {
    description: 'One broker of KAFKA_BROKERS (a comma-separated host:port list).',
    default: 'localhost:9092',
  },
};

const server = (protocol: string, description: string, security: unknown[] = []) => ({
  host: '{bootstrap}',
  protocol,
  description,
  variables: bootstrap,
  ...(security.length > 0 ? { security } : {}),
});

/** One server per way of connecting; a deployment uses the one its cluster asks for. */
export function kafkaServers(): JsonSchema {
  return {
    plain: server(
      'kafka',
      'No encryption, no authentication: KAFKA_TLS=false, KAFKA_SASL_MECHANISM=none (the defaults).',
    ),
    tls: server(
      'kafka-secure',
      "TLS, the broker's certificate checked (host name included) against KAFKA_TLS_CA_FILE or the system's CAs: KAFKA_TLS=true.",
    ),
    mutualTls: server('kafka-secure', 'TLS with a client certificate: KAFKA_TLS=true.', [
      scheme('clientCertificate'),
    ]),
    sasl: server(
      'kafka-secure',
      'SASL over TLS (SASL_SSL): KAFKA_TLS=true and one of the mechanisms of KAFKA_SASL_MECHANISM. With KAFKA_TLS=false the same mechanisms run without TLS (SASL_PLAINTEXT).',
      [scheme('saslPlain'), scheme('saslScramSha256'), scheme('saslScramSha512')],
    ),
  };
}

/**
 * The Kafka channel binding of a topic of `role`: partitions (TOPIC_PARTITIONS' default, what the
 * bridge creates every topic with), replicas and configuration as a platform team should set them.
 */
export function topicBinding(topic: string, role: TopicRole): JsonSchema {
  const { 'cleanup.policy': cleanup, ...rest } = TOPIC_CONFIGS[role];
  return {
    kafka: {
      topic,
      partitions: DEFAULT_TOPIC_PARTITIONS,
      replicas: RECOMMENDED_REPLICAS,
      topicConfiguration: { 'cleanup.policy': cleanup.split(','), ...rest },
      bindingVersion: KAFKA_BINDING_VERSION,
    },
  };
}
