// What a KRaft node reads from its data dir: server.properties, a logging configuration for its
// release family, and formatted storage. A single broker is node 1 of a quorum of one.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestCertificates } from './certificates.js';
import { type BrokerPorts, HOST } from './ports.js';
import type { Family } from './releases.js';
import {
  AUTHORIZER,
  type LocalKafkaUser,
  scramArguments,
  securedListeners,
  securedProperties,
} from './secured-listeners.js';
import { lastLines, runTool } from './tool-run.js';

export interface SecuredSetup {
  certificates: TestCertificates;
  users: readonly LocalKafkaUser[];
  /** KRaft's StandardAuthorizer (secured-listeners.ts, authorizerProperties). */
  authorizer: boolean;
}

/** Which node this is, and every node's ports (the controller quorum's voters). */
export interface NodePlace {
  nodeId: number;
  nodes: readonly BrokerPorts[];
}

export interface BrokerFiles {
  dataDir: string;
  serverProperties: string;
  serverLog: string;
  consoleLog: string;
  logDirs: string;
  loggingFlag: string;
}

function serverProperties(
  place: NodePlace,
  logDirs: string,
  secured: SecuredSetup | undefined,
): string[] {
  const { nodeId, nodes } = place;
  const ports = nodes[nodeId - 1] as BrokerPorts;
  // Clients' listeners; the controller's is not advertised.
  const listeners = [
    { name: 'PLAINTEXT', protocol: 'PLAINTEXT', port: ports.port },
    ...(ports.secured ? securedListeners(ports.secured) : []),
  ];
  const address = ({ name, port }: { name: string; port: number }) => `${name}://${HOST}:${port}`;
  const protocols = listeners.map(({ name, protocol }) => `${name}:${protocol}`);
  const voters = nodes.map(({ controllerPort }, index) => `${index + 1}@${HOST}:${controllerPort}`);
  return [
    'process.roles=broker,controller',
    `node.id=${nodeId}`,
    // A static voter set works for 3.9 and 4.x alike, so `format` needs no --standalone.
    `controller.quorum.voters=${voters.join(',')}`,
    `listeners=${[...listeners.map(address), `CONTROLLER://${HOST}:${ports.controllerPort}`].join(',')}`,
    `advertised.listeners=${listeners.map(address).join(',')}`,
    `listener.security.protocol.map=${[...protocols, 'CONTROLLER:PLAINTEXT'].join(',')}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${logDirs}`,
    ...(nodes.length === 1 ? ONE_NODE : CLUSTER),
    // Tests join groups constantly; the default 3 s delay only slows every first rebalance.
    'group.initial.rebalance.delay.ms=0',
    // Kept at the broker default (true) for simplicity: tests create their topics explicitly
    // through the admin client anyway, so auto-creation never hides a missing topic there.
    'auto.create.topics.enable=true',
    ...(secured ? securedProperties(secured.certificates, secured.users) : []),
    ...(secured?.authorizer ? AUTHORIZER : []),
  ];
}

// One node: internal topics cannot have more replicas than brokers.
const ONE_NODE = [
  'num.partitions=1',
  'offsets.topic.replication.factor=1',
  'offsets.topic.num.partitions=1',
  'transaction.state.log.replication.factor=1',
  'transaction.state.log.min.isr=1',
  'transaction.state.log.num.partitions=1',
];

// What a production cluster keeps (docs/local-kafka.md "A cluster"): three copies of every
// partition, an acks=all write refused once fewer than two hold it, no leader elected from
// outside the ISR; with timeouts short enough that a test sees a node leave and come back in
// seconds, and three partitions per internal topic so the coordinators spread over the nodes.
const CLUSTER = [
  'num.partitions=3',
  'default.replication.factor=3',
  'min.insync.replicas=2',
  'unclean.leader.election.enable=false',
  'offsets.topic.replication.factor=3',
  'offsets.topic.num.partitions=3',
  'transaction.state.log.replication.factor=3',
  'transaction.state.log.min.isr=2',
  'transaction.state.log.num.partitions=3',
  'controlled.shutdown.enable=true',
  'broker.heartbeat.interval.ms=500',
  'broker.session.timeout.ms=6000',
  'replica.lag.time.max.ms=10000',
];

/** Kafka 3.x logs through reload4j, 4.x through log4j2; both only to a file, keeping the console quiet. */
const LOGGING: Record<Family, { fileName: string; flag: string; lines(file: string): string[] }> = {
  'kafka-3': {
    fileName: 'log4j.properties',
    flag: '-Dlog4j.configuration=file:',
    lines: (file) => [
      'log4j.rootLogger=INFO, file',
      'log4j.appender.file=org.apache.log4j.FileAppender',
      `log4j.appender.file.File=${file}`,
      'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
    ],
  },
  'kafka-4': {
    fileName: 'log4j2.properties',
    flag: '-Dlog4j2.configurationFile=',
    lines: (file) => [
      'appender.file.type=File',
      'appender.file.name=file',
      `appender.file.fileName=${file}`,
      'appender.file.layout.type=PatternLayout',
      'appender.file.layout.pattern=[%d] %p %m (%c)%n',
      'rootLogger.level=INFO',
      'rootLogger.appenderRef.file.ref=file',
    ],
  },
};

function textFile(lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

export async function writeBrokerFiles(
  family: Family,
  dataDir: string,
  place: NodePlace,
  secured?: SecuredSetup,
): Promise<BrokerFiles> {
  await mkdir(dataDir, { recursive: true });
  const files = {
    dataDir,
    serverProperties: join(dataDir, 'server.properties'),
    serverLog: join(dataDir, 'server.log'),
    consoleLog: join(dataDir, 'console.log'),
    logDirs: join(dataDir, 'kraft'),
  };
  const logging = LOGGING[family];
  const loggingFile = join(dataDir, logging.fileName);
  const properties = serverProperties(place, files.logDirs, secured);
  await writeFile(files.serverProperties, textFile(properties));
  await writeFile(loggingFile, textFile(logging.lines(files.serverLog)));
  return { ...files, loggingFlag: `${logging.flag}${loggingFile}` };
}

/**
 * Same format as `kafka-storage.sh random-uuid` (16 random bytes, base64url), generated here to
 * save a JVM start. Kafka never hands out IDs starting with '-' because the CLI would read them
 * as a flag, so neither do we.
 */
export function randomClusterId(): string {
  const id = randomBytes(16).toString('base64url');
  return id.startsWith('-') ? randomClusterId() : id;
}

/**
 * Formats new storage, creating `users`' SCRAM credentials in the cluster's metadata. The nodes
 * of one cluster share its id.
 */
export async function formatStorage(
  libs: string,
  files: BrokerFiles,
  users: readonly LocalKafkaUser[] = [],
  clusterId = randomClusterId(),
): Promise<void> {
  // A caller-supplied dataDir is reused as is (with the users of its first start). Not `format
  // --ignore-formatted`: 4.x rejects it when the new cluster id differs from the stored one
  // ("Invalid cluster.id in ...").
  if (existsSync(join(files.logDirs, 'meta.properties'))) return;
  const args = ['-cp', join(libs, '*'), files.loggingFlag, 'kafka.tools.StorageTool', 'format'];
  args.push('-t', clusterId, '-c', files.serverProperties, ...scramArguments(users));
  const { code, output } = await runTool('java', args);
  if (code !== 0)
    throw new Error(`kafka storage format failed (exit ${code}):\n${lastLines(output, 30)}`);
}
