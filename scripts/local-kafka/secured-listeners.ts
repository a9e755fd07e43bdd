// The local broker's secured listeners, beside its PLAINTEXT one: SASL_SSL (TLS with the
// broker's certificate; SASL PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512) and MTLS (TLS that requires
// a client certificate signed by the test CA). PLAIN users live in the listener's JAAS
// configuration; SCRAM users are written into the cluster metadata by `kafka-storage format
// --add-scram`, the broker's own tooling.
import type { TestCertificates } from './certificates.js';
import { HOST, type SecuredPorts } from './ports.js';

export const LOCAL_KAFKA_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type LocalKafkaMechanism = (typeof LOCAL_KAFKA_MECHANISMS)[number];

export interface LocalKafkaUser {
  mechanism: LocalKafkaMechanism;
  username: string;
  password: string;
}

// Both go into JAAS and --add-scram syntax unquoted, so only characters neither gives a meaning.
const SAFE = /^[A-Za-z0-9_-]{1,64}$/;

export function checkUsers(users: readonly LocalKafkaUser[]): void {
  for (const { username, password } of users) {
    if (!SAFE.test(username) || !SAFE.test(password))
      throw new Error(`local Kafka user "${username}": use letters, digits, _ and - only`);
  }
}

export function securedListeners(ports: SecuredPorts) {
  return [
    { name: 'SASL_SSL', protocol: 'SASL_SSL', port: ports.saslSsl },
    { name: 'MTLS', protocol: 'SSL', port: ports.mtls },
  ];
}

/** server.properties lines for the secured listeners (their addresses are written elsewhere). */
export function securedProperties(
  certificates: TestCertificates,
  users: readonly LocalKafkaUser[],
): string[] {
  const plainUsers = users
    .filter((user) => user.mechanism === 'PLAIN')
    .map(({ username, password }) => ` user_${username}="${password}"`)
    .join('');
  const scram = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
  return [
    `sasl.enabled.mechanisms=${LOCAL_KAFKA_MECHANISMS.join(',')}`,
    `listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required${plainUsers};`,
    `listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=${scram}`,
    `listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=${scram}`,
    'ssl.keystore.type=PKCS12',
    `ssl.keystore.location=${certificates.brokerKeystore}`,
    `ssl.keystore.password=${certificates.storePassword}`,
    `ssl.key.password=${certificates.storePassword}`,
    // Client certificates are checked against the test CA; only MTLS asks for one.
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${certificates.caFile}`,
    'listener.name.mtls.ssl.client.auth=required',
  ];
}

/**
 * KRaft's StandardAuthorizer, for tests of what a client does when an ACL refuses it: a resource
 * without ACLs stays open to every principal (allow.everyone.if.no.acl.found), so a test adds
 * ACLs only where it refuses something. PLAINTEXT connections, which the brokers, the controller
 * and the tests' own clients use, are User:ANONYMOUS, a super user whom no ACL refuses.
 */
export const AUTHORIZER = [
  'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'allow.everyone.if.no.acl.found=true',
  'super.users=User:ANONYMOUS',
];

/** `kafka-storage format` arguments that create the SCRAM users. */
export function scramArguments(users: readonly LocalKafkaUser[]): string[] {
  return users
    .filter((user) => user.mechanism !== 'PLAIN')
    .flatMap(({ mechanism, username, password }) => [
      '--add-scram',
      `${mechanism}=[name=${username},password=${password}]`,
    ]);
}

export function securedBrokers(ports: SecuredPorts) {
  return { saslSslBrokers: [`${HOST}:${ports.saslSsl}`], mtlsBrokers: [`${HOST}:${ports.mtls}`] };
}
