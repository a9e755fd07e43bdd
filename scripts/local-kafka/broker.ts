// A real single-node KRaft Kafka broker for tests, the demo and benchmarks, assembled from
// Maven Central jars (pom.xml beside this file) and run straight on the JVM: no Docker needed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { formatStorage, writeBrokerFiles } from './broker-files.js';
import { launchBroker, waitUntilReady } from './broker-launch.js';
import { ensureKafkaInstalled } from './install.js';
import { HOST, pickPorts } from './ports.js';
import { DEFAULT_KAFKA_VERSION, releaseFamily } from './releases.js';
import { superviseBroker } from './supervision.js';

export { ensureKafkaInstalled } from './install.js';
export { DEFAULT_KAFKA_VERSION, KAFKA_4_VERSION } from './releases.js';

export interface LocalKafkaOptions {
  version?: string;
  /** PLAINTEXT listener port; a free ephemeral port by default. */
  port?: number;
  /** Kept and reused across starts when given; otherwise a temp dir deleted by stop(). */
  dataDir?: string;
  heapMb?: number;
}

export interface LocalKafka {
  brokers: string[];
  version: string;
  stop(): Promise<void>;
}

/** Starts a one-node KRaft broker (broker + controller in one JVM) and resolves once it answers. */
export async function startLocalKafka(options: LocalKafkaOptions = {}): Promise<LocalKafka> {
  const version = options.version ?? DEFAULT_KAFKA_VERSION;
  const family = releaseFamily(version);
  const libs = await ensureKafkaInstalled(version);
  const { port, controllerPort } = await pickPorts(options.port);
  const broker = `${HOST}:${port}`;
  // Absolute, because the JVM runs inside it and the configs written there name paths in it.
  const dataDir = options.dataDir
    ? resolvePath(options.dataDir)
    : await mkdtemp(join(tmpdir(), 'signing-bridge-kafka-'));
  const tempDir = options.dataDir === undefined ? dataDir : undefined;

  let stop = async () => {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  };
  try {
    const files = await writeBrokerFiles(family, dataDir, { port, controllerPort });
    await formatStorage(libs, files);
    const child = await launchBroker(libs, files, options.heapMb ?? 512);
    stop = superviseBroker(child, tempDir);
    await waitUntilReady(broker, child, files);
  } catch (error) {
    await stop();
    throw error;
  }
  return { brokers: [broker], version, stop };
}
