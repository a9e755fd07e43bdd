/**
 * The service against a secured cluster: a local broker of its own (the run's shared one has a
 * PLAINTEXT listener only) with a SASL_SSL listener (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and a
 * mutual-TLS listener, certificates made by keytool for this run. Commands go in and events come
 * out through the PLAINTEXT listener, as other services would; the bridge alone goes through
 * the secured one. A refused login stops start-up at once, naming the setting to correct.
 */
import { createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LocalKafka,
  type LocalKafkaUser,
  type SecuredKafka,
  startLocalKafka,
} from '../../scripts/local-kafka/broker.js';
import { kafkaConnectionOptions } from '../../src/config/component-settings.js';
import { loadConfig, loadKafkaConfig } from '../../src/config/index.js';
import { KafkaAuthenticationFailed } from '../../src/errors.js';
import { createKafkaConnection, createPartitionScanner } from '../../src/kafka/index.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { startService } from '../../src/service.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  CommandSender,
  commands,
  EventCollector,
  uniquePrefix,
} from '../support/bridge-harness.js';
import { uniqueId } from '../support/unique.js';
import { runCommand, serviceEnvironment } from './support/service-process.js';

const USERS: LocalKafkaUser[] = [
  { mechanism: 'SCRAM-SHA-512', username: 'bridge-512', password: 'scram-512-secret' },
  { mechanism: 'SCRAM-SHA-256', username: 'bridge-256', password: 'scram-256-secret' },
  { mechanism: 'PLAIN', username: 'bridge-plain', password: 'plain-secret' },
];
const KEY_PASSWORD = 'client-key-secret';
const log = pino({ level: 'silent' });

let kafka: LocalKafka;
let secured: SecuredKafka;
let sim: RunningSimulator;
let secrets: string;
/** Files the bridge reads its secrets from, as from a mounted Secret. */
const files = { password: {} as Record<string, string>, keyPassword: '', encryptedKey: '' };

beforeAll(async () => {
  [kafka, sim, secrets] = await Promise.all([
    startLocalKafka({ heapMb: 384, secured: { users: USERS } }),
    startSimulator({ log: false }),
    mkdtemp(join(tmpdir(), 'secured-kafka-test-')),
  ]);
  if (!kafka.secured) throw new Error('the local broker came up without its secured listeners');
  secured = kafka.secured;
  for (const { username, password } of USERS) {
    files.password[username] = join(secrets, `${username}.password`);
    await writeFile(files.password[username], `${password}\n`);
  }
  // The client key, encrypted, so that KAFKA_TLS_KEY_PASSWORD_FILE has work to do.
  const key = createPrivateKey(await readFile(secured.certificates.clientKeyFile, 'utf8'));
  files.encryptedKey = join(secrets, 'client-key.encrypted.pem');
  const encrypted = { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc' } as const;
  await writeFile(files.encryptedKey, key.export({ ...encrypted, passphrase: KEY_PASSWORD }));
  files.keyPassword = join(secrets, 'key.password');
  await writeFile(files.keyPassword, KEY_PASSWORD);
});

afterAll(async () => {
  await sim?.stop();
  await kafka?.stop();
  if (secrets) await rm(secrets, { recursive: true, force: true });
});

/** The service's environment: topics and a group of its own, Kafka as `security` says. */
function environment(prefix: string, security: Record<string, string>) {
  return serviceEnvironment(prefix, sim.url, security);
}

/** TLS to the SASL_SSL listener, trusting the test CA, logged in as `username`. */
function saslSsl(username: string, mechanism: string): Record<string, string> {
  return {
    KAFKA_BROKERS: secured.saslSslBrokers.join(','),
    KAFKA_TLS: 'true',
    KAFKA_TLS_CA_FILE: secured.certificates.caFile,
    KAFKA_SASL_MECHANISM: mechanism,
    KAFKA_SASL_USERNAME: username,
    KAFKA_SASL_PASSWORD_FILE: files.password[username] ?? '',
  };
}

function mutualTls() {
  return {
    KAFKA_BROKERS: secured.mtlsBrokers.join(','),
    KAFKA_TLS: 'true',
    KAFKA_TLS_CA_FILE: secured.certificates.caFile,
    KAFKA_TLS_CERT_FILE: secured.certificates.clientCertFile,
    KAFKA_TLS_KEY_FILE: files.encryptedKey,
    KAFKA_TLS_KEY_PASSWORD_FILE: files.keyPassword,
  };
}

/** Starts the service; produces a create-contract through PLAINTEXT; its terminal event. */
async function createContractThrough(security: Record<string, string>) {
  const prefix = uniquePrefix();
  const service = await startService(loadConfig(environment(prefix, security)), log);
  const topics = topicNames(prefix);
  const sender = await CommandSender.connect(kafka.brokers, topics);
  const collector = await EventCollector.start(kafka.brokers, topics);
  try {
    const create = await commands.createContract(uniqueId('secured'), { documents: 1 });
    await sender.send([create]);
    return await collector.waitForTerminalEvent(create.command.commandId);
  } finally {
    await collector.stop();
    await sender.close();
    await service.stop();
  }
}

/** The error start-up stopped with. */
async function startFailure(security: Record<string, string>): Promise<KafkaAuthenticationFailed> {
  const config = loadConfig(environment(uniquePrefix(), security));
  const error = await startService(config, log).then(
    async (service) => {
      await service.stop();
      return new Error('the service started');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(KafkaAuthenticationFailed);
  return error as KafkaAuthenticationFailed;
}

describe('a secured cluster', () => {
  it.each([
    ['SASL_SSL with SCRAM-SHA-512', () => saslSsl('bridge-512', 'scram-sha-512')],
    ['SASL_SSL with SCRAM-SHA-256', () => saslSsl('bridge-256', 'scram-sha-256')],
    ['SASL_SSL with PLAIN', () => saslSsl('bridge-plain', 'plain')],
    ['mutual TLS with an encrypted client key', mutualTls],
  ])(
    'when the bridge connects over %s, then it processes a create-contract end to end',
    async (_, security) => {
      const ended = await createContractThrough(security());
      expect(ended.event.type).toBe('signingbridge.contract.created');
    },
  );

  it('when the SASL password is wrong, then start-up stops with an error naming KAFKA_SASL_PASSWORD', async () => {
    const error = await startFailure({
      ...saslSsl('bridge-512', 'scram-sha-512'),
      KAFKA_SASL_PASSWORD_FILE: '',
      KAFKA_SASL_PASSWORD: 'not-the-password',
    });
    expect(error.code).toBe('SB_ERR_KAFKA_AUTH_FAILED');
    expect(error.details.reason).toBe('sasl-credentials');
    expect(error.message).toContain('KAFKA_SASL_PASSWORD');
    expect(error.message).not.toContain('not-the-password');
  });

  it("when the CA file does not hold the CA of the broker's certificate, then start-up stops naming KAFKA_TLS_CA_FILE", async () => {
    const error = await startFailure({
      ...saslSsl('bridge-512', 'scram-sha-512'),
      KAFKA_TLS_CA_FILE: secured.certificates.otherCaFile,
    });
    expect(error.details.reason).toBe('tls-untrusted');
    expect(error.message).toContain('KAFKA_TLS_CA_FILE');
  });

  it('when the broker is addressed by a name its certificate does not hold, then start-up stops naming KAFKA_BROKERS', async () => {
    // The certificate names 127.0.0.1 only: the host name is verified, not just the chain.
    const byName = secured.saslSslBrokers.map((broker) => broker.replace('127.0.0.1', 'localhost'));
    const error = await startFailure({
      ...saslSsl('bridge-512', 'scram-sha-512'),
      KAFKA_BROKERS: byName.join(','),
    });
    expect(error.details.reason).toBe('tls-host-name');
    expect(error.message).toContain('KAFKA_BROKERS');
  });

  it('when the mutual-TLS listener gets no client certificate, then start-up stops naming KAFKA_TLS_CERT_FILE', async () => {
    const { KAFKA_BROKERS, KAFKA_TLS, KAFKA_TLS_CA_FILE } = mutualTls();
    const error = await startFailure({ KAFKA_BROKERS, KAFKA_TLS, KAFKA_TLS_CA_FILE });
    expect(error.details.reason).toBe('tls-client-certificate');
    expect(error.message).toContain('KAFKA_TLS_CERT_FILE');
  });
});

describe('signing-bridge run against a secured cluster', () => {
  it('when the SASL password is wrong, then the process exits 1 naming KAFKA_SASL_PASSWORD, and the password is in no output', async () => {
    const password = 'wrong-password-4711';
    const env = environment(uniquePrefix(), {
      ...saslSsl('bridge-512', 'scram-sha-512'),
      KAFKA_SASL_PASSWORD_FILE: '',
      KAFKA_SASL_PASSWORD: password,
    });
    const run = runCommand(env);
    expect(await run.exited).toBe(1);
    const output = run.output.stdout + run.output.stderr;
    expect(output).toContain('"msg":"signing-bridge could not start"');
    expect(output).toContain('SB_ERR_KAFKA_AUTH_FAILED');
    expect(output).toContain('KAFKA_SASL_PASSWORD');
    // The summary logged at start shows the setting, masked (by the summary, then the logger).
    expect(output).toMatch(/"KAFKA_SASL_PASSWORD":"(\*\*\*|\[redacted\])"/);
    expect(output).not.toContain(password);
  });

  it('when --check-config reads secrets from files, then it prints their paths and no secret', async () => {
    const env = environment(uniquePrefix(), mutualTls());
    const run = runCommand(env, ['--check-config']);
    expect(await run.exited).toBe(0);
    expect(run.output.stdout).toContain(`"KAFKA_TLS_KEY_PASSWORD_FILE": "${files.keyPassword}"`);
    expect(run.output.stdout).toContain('"KAFKA_TLS_KEY_PASSWORD": "***"');
    expect(run.output.stdout).not.toContain(KEY_PASSWORD);
    expect(run.output.stdout).not.toContain('PRIVATE KEY');
  });
});

describe("the console's partition scanner against a secured cluster", () => {
  /** Three records on partition 0 of a topic of its own, two keyed `wanted`; its name. */
  async function topicWithRecords(): Promise<string> {
    const topic = `${uniquePrefix()}scanned`;
    const plain = createKafkaConnection({ brokers: kafka.brokers, clientId: 'harness', log });
    const admin = await plain.clusterAdmin();
    await admin
      .createTopics([{ topic, partitions: 1, configs: {} }])
      .finally(() => admin.disconnect());
    const producer = await plain.positionedProducer();
    await producer.send(
      ['wanted', 'other', 'wanted'].map((key, i) => ({ topic, partition: 0, key, value: `v${i}` })),
    );
    await producer.disconnect();
    return topic;
  }

  /** Reads partition 0 of `topic` through its own connections, logged in as `security` says. */
  async function scanFor(topic: string, security: Record<string, string>, key: string) {
    const options = kafkaConnectionOptions(
      loadKafkaConfig({ ...security, TOPIC_PREFIX: 'x.' }),
      log,
    );
    const tools = createKafkaConnection(options);
    const admin = await tools.clusterAdmin();
    const scanner = createPartitionScanner(options, (t) => admin.partitionLeaders(t));
    try {
      const range = await scanner.range(topic, 0);
      const kept: string[] = [];
      const wanted = Buffer.from(key);
      const result = await scanner.scan({
        topic,
        partition: 0,
        from: BigInt(range.start),
        to: BigInt(range.end),
        visit: (record) => {
          if (record.keyEquals(wanted)) kept.push(record.copy().value?.toString() ?? '');
        },
      });
      return { range, kept, records: result.records };
    } finally {
      await scanner.disconnect();
      await admin.disconnect();
    }
  }

  it.each([
    ['SASL_SSL with SCRAM-SHA-512', () => saslSsl('bridge-512', 'scram-sha-512')],
    ['SASL_SSL with SCRAM-SHA-256', () => saslSsl('bridge-256', 'scram-sha-256')],
    ['SASL_SSL with PLAIN', () => saslSsl('bridge-plain', 'plain')],
    ['mutual TLS with an encrypted client key', mutualTls],
  ])('when it reads over %s, then it finds the records of a key', async (_, security) => {
    const topic = await topicWithRecords();
    expect(await scanFor(topic, security(), 'wanted')).toEqual({
      range: { partition: 0, start: '0', end: '3' },
      kept: ['v0', 'v2'],
      records: 3,
    });
  });

  it('when its SASL password is wrong, then the read is refused, saying so', async () => {
    const topic = await topicWithRecords();
    const wrong = {
      ...saslSsl('bridge-512', 'scram-sha-512'),
      KAFKA_SASL_PASSWORD_FILE: '',
      KAFKA_SASL_PASSWORD: 'nope',
    };
    // The admin client of the same settings is refused first; the scanner's own login is the
    // one asked here, with the leaders the right credentials found.
    const options = kafkaConnectionOptions(loadKafkaConfig({ ...wrong, TOPIC_PREFIX: 'x.' }), log);
    const right = createKafkaConnection(
      kafkaConnectionOptions(
        loadKafkaConfig({ ...saslSsl('bridge-512', 'scram-sha-512'), TOPIC_PREFIX: 'x.' }),
        log,
      ),
    );
    const admin = await right.clusterAdmin();
    const scanner = createPartitionScanner(options, (t) => admin.partitionLeaders(t));
    try {
      await expect(scanner.range(topic, 0)).rejects.toThrow(/SASL login refused|SCRAM/);
    } finally {
      await scanner.disconnect();
      await admin.disconnect();
    }
  });
});
