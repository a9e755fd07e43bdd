// A real single-node KRaft Kafka broker for tests, the demo and benchmarks, assembled from
// Maven Central jars (pom.xml beside this file) and run straight on the JVM: no Docker needed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { formatStorage, type SecuredSetup, writeBrokerFiles } from './broker-files.js';
import { launchBroker, waitUntilReady } from './broker-launch.js';
import { makeCertificates, type TestCertificates } from './certificates.js';
import { ensureKafkaInstalled } from './install.js';
import { type BrokerPorts, HOST, pickPorts } from './ports.js';
import { DEFAULT_KAFKA_VERSION, releaseFamily } from './releases.js';
import { checkUsers, type LocalKafkaUser, securedBrokers } from './secured-listeners.js';
import { superviseBroker } from './supervision.js';

export type { TestCertificates } from './certificates.js';
export { ensureKafkaInstalled } from './install.js';
export { DEFAULT_KAFKA_VERSION, KAFKA_4_VERSION } from './releases.js';
export type { LocalKafkaMechanism, LocalKafkaUser } from './secured-listeners.js';

export interface LocalKafkaOptions {
  version?: string;
  /** PLAINTEXT listener port; a free ephemeral port by default. */
  port?: number;
  /** Kept and reused across starts when given; otherwise a temp dir deleted by stop(). */
  dataDir?: string;
  heapMb?: number;
  /**
   * Adds a SASL_SSL and a mutual-TLS listener, with certificates made for this start. SCRAM
   * users are created when the storage is formatted: a reused dataDir keeps its first users.
   * `authorizer`: ACLs apply (secured-listeners.ts, AUTHORIZER): a SASL user is `User:<name>`.
   */
  secured?: { users: readonly LocalKafkaUser[]; authorizer?: boolean };
}

export interface LocalKafka {
  /** The PLAINTEXT listener. */
  brokers: string[];
  version: string;
  secured?: SecuredKafka;
  stop(): Promise<void>;
}

export interface SecuredKafka {
  /** TLS (the broker's certificate signed by `certificates.caFile`) and SASL. */
  saslSslBrokers: string[];
  /** TLS that requires a client certificate signed by `certificates.caFile`; no SASL. */
  mtlsBrokers: string[];
  certificates: TestCertificates;
}

/** Starts a one-node KRaft broker (broker + controller in one JVM) and resolves once it answers. */
export async function startLocalKafka(options: LocalKafkaOptions = {}): Promise<LocalKafka> {
  const version = options.version ?? DEFAULT_KAFKA_VERSION;
  const family = releaseFamily(version);
  if (options.secured) checkUsers(options.secured.users);
  const libs = await ensureKafkaInstalled(version);
  const ports = await pickPorts(options.port, options.secured !== undefined);
  const broker = `${HOST}:${ports.port}`;
  // Absolute, because the JVM runs inside it and the configs written there name paths in it.
  const dataDir = options.dataDir
    ? resolvePath(options.dataDir)
    : await mkdtemp(join(tmpdir(), 'signing-bridge-kafka-'));
  const tempDir = options.dataDir === undefined ? dataDir : undefined;

  let stop = async () => {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  };
  let secured: SecuredKafka | undefined;
  try {
    const setup =
      options.secured &&
      (await secure(dataDir, options.secured.users, options.secured.authorizer === true));
    const files = await writeBrokerFiles(family, dataDir, { nodeId: 1, nodes: [ports] }, setup);
    await formatStorage(libs, files, setup?.users);
    const child = await launchBroker(libs, files, options.heapMb ?? 512);
    stop = superviseBroker(child, tempDir);
    await waitUntilReady({ broker, nodeId: 1 }, child, files);
    secured = setup && securedKafka(ports, setup);
  } catch (error) {
    await stop();
    throw error;
  }
  return { brokers: [broker], version, secured, stop };
}

/** Fresh certificates on every start: a reused dataDir's old keystore is replaced. */
async function secure(
  dataDir: string,
  users: readonly LocalKafkaUser[],
  authorizer: boolean,
): Promise<SecuredSetup> {
  const dir = join(dataDir, 'tls');
  await rm(dir, { recursive: true, force: true });
  return { certificates: await makeCertificates(dir), users, authorizer };
}

function securedKafka(ports: BrokerPorts, setup: SecuredSetup): SecuredKafka | undefined {
  return ports.secured && { ...securedBrokers(ports.secured), certificates: setup.certificates };
}
