// A real single-node KRaft Kafka broker for tests, the demo and benchmarks, assembled from
// Maven Central jars (pom.xml beside this file) and run straight on the JVM: no Docker needed.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import type { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';

/** The broker line the project targets (Confluent Platform 7.9 ships the same Kafka 3.9). */
export const DEFAULT_KAFKA_VERSION = '3.9.2';
/** Newest 4.x release on Maven Central when this was written, for compatibility checks. */
export const KAFKA_4_VERSION = '4.1.2';

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

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const POM = join(REPO_ROOT, 'scripts', 'local-kafka', 'pom.xml');
// Gitignored; holds one <version>/libs folder per installed release.
const KAFKA_HOME = join(REPO_ROOT, '.kafka');
const INSTALLED_MARKER = '.installed';
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 20_000;
const MISSING_TOOL_HINTS: Record<string, string> = {
  java: 'install a JDK 17 (the local Kafka broker runs on the JVM)',
  mvn: 'install Maven 3.8+ (it downloads the Kafka broker jars from Maven Central)',
};

type Family = 'kafka-3' | 'kafka-4';

function releaseFamily(version: string): Family {
  const major = /^(\d+)\.\d+\.\d+$/.exec(version)?.[1];
  if (major === '3') return 'kafka-3';
  if (major === '4') return 'kafka-4';
  throw new Error(`unsupported Kafka version "${version}": expected 3.x.y or 4.x.y`);
}

/** Runs a command to completion, capturing stdout and stderr together for error messages. */
function runCommand(command: string, args: string[]) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', (error) => reject(toolError(command, error)));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function toolError(command: string, error: Error): Error {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
  const hint = MISSING_TOOL_HINTS[command] ?? 'install it';
  return new Error(`${command} not found on PATH: ${hint}`, { cause: error });
}

/** Downloads the broker's jars once into <repo>/.kafka/<version>/libs and returns that folder. */
export async function ensureKafkaInstalled(version = DEFAULT_KAFKA_VERSION): Promise<string> {
  const family = releaseFamily(version);
  const home = join(KAFKA_HOME, version);
  const libs = join(home, 'libs');
  if (existsSync(join(libs, INSTALLED_MARKER))) return libs;

  // Resolve into a staging folder and rename it into place, so an interrupted download never
  // looks installed and two concurrent installs cannot interleave their jars.
  await mkdir(KAFKA_HOME, { recursive: true });
  const staging = await mkdtemp(join(KAFKA_HOME, `staging-${version}-`));
  try {
    await copyDependencies(version, family, staging);
    await writeFile(join(staging, INSTALLED_MARKER), `${new Date().toISOString()}\n`);
    await mkdir(home, { recursive: true });
    await rename(staging, libs);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (existsSync(join(libs, INSTALLED_MARKER))) return libs;
    throw error;
  }
  return libs;
}

async function copyDependencies(version: string, family: Family, outputDir: string): Promise<void> {
  const profile = ['-f', POM, '-P', family, `-Dkafka.version=${version}`];
  const goal = ['dependency:copy-dependencies', `-DoutputDirectory=${outputDir}`];
  const { code, output } = await runCommand('mvn', [
    '--batch-mode',
    '--quiet',
    ...profile,
    ...goal,
  ]);
  if (code !== 0) {
    throw new Error(`mvn could not resolve Kafka ${version} (exit ${code}): ${mavenError(output)}`);
  }
}

/** Maven's first [ERROR] line carries the cause; the lines after it are boilerplate. */
function mavenError(output: string): string {
  const lines = stripVTControlCharacters(output).split('\n');
  return lines.find((line) => /^\[ERROR\] \S/.test(line)) ?? tail(output, 30);
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Binds the given ports (0: any free one) at once, then releases them for Kafka to bind. */
async function reservePorts(wanted: number[]): Promise<number[]> {
  const servers = wanted.map(() => createServer());
  const bind = (port: number, index: number) =>
    new Promise<number>((resolve, reject) => {
      const server = servers[index] as Server;
      server.once('error', reject);
      server.listen(port, HOST, () => resolve((server.address() as AddressInfo).port));
    });
  try {
    return await Promise.all(wanted.map(bind));
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

async function pickPorts(requested = 0): Promise<{ port: number; controllerPort: number }> {
  try {
    const [port = requested, controllerPort = 0] = await reservePorts([requested, 0]);
    return { port, controllerPort };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const hint = 'pass another port, or none to get a free one';
    throw new Error(`port ${requested} on ${HOST} is already in use: ${hint}`, { cause: error });
  }
}

interface BrokerFiles {
  dataDir: string;
  serverProperties: string;
  serverLog: string;
  consoleLog: string;
  logDirs: string;
  loggingFlag: string;
}

function serverProperties(port: number, controllerPort: number, logDirs: string): string[] {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    // A static voter set works for 3.9 and 4.x alike, so `format` needs no --standalone.
    `controller.quorum.voters=1@${HOST}:${controllerPort}`,
    `listeners=PLAINTEXT://${HOST}:${port},CONTROLLER://${HOST}:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://${HOST}:${port}`,
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${logDirs}`,
    'num.partitions=1',
    // One node: internal topics cannot have more replicas than brokers.
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=1',
    // Tests join groups constantly; the default 3 s delay only slows every first rebalance.
    'group.initial.rebalance.delay.ms=0',
    // Kept at the broker default (true) for simplicity: tests create their topics explicitly
    // through the admin client anyway, so auto-creation never hides a missing topic there.
    'auto.create.topics.enable=true',
  ];
}

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

async function writeBrokerFiles(
  family: Family,
  dataDir: string,
  ports: { port: number; controllerPort: number },
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
  const properties = serverProperties(ports.port, ports.controllerPort, files.logDirs);
  await writeFile(files.serverProperties, textFile(properties));
  await writeFile(loggingFile, textFile(logging.lines(files.serverLog)));
  return { ...files, loggingFlag: `${logging.flag}${loggingFile}` };
}

/**
 * Same format as `kafka-storage.sh random-uuid` (16 random bytes, base64url), generated here to
 * save a JVM start. Kafka never hands out IDs starting with '-' because the CLI would read them
 * as a flag, so neither do we.
 */
function randomClusterId(): string {
  const id = randomBytes(16).toString('base64url');
  return id.startsWith('-') ? randomClusterId() : id;
}

async function formatStorage(libs: string, files: BrokerFiles): Promise<void> {
  // A caller-supplied dataDir is reused as is. Not `format --ignore-formatted`: 4.x rejects
  // it when the new cluster id differs from the stored one ("Invalid cluster.id in ...").
  if (existsSync(join(files.logDirs, 'meta.properties'))) return;
  const args = ['-cp', join(libs, '*'), files.loggingFlag, 'kafka.tools.StorageTool', 'format'];
  args.push('-t', randomClusterId(), '-c', files.serverProperties);
  const { code, output } = await runCommand('java', args);
  if (code !== 0)
    throw new Error(`kafka storage format failed (exit ${code}):\n${tail(output, 30)}`);
}

async function launchBroker(libs: string, files: BrokerFiles, heapMb: number) {
  const jvm = [`-Xmx${heapMb}m`, `-Xms${Math.min(256, heapMb)}m`, '-Djava.awt.headless=true'];
  const args = [...jvm, files.loggingFlag, '-cp', join(libs, '*'), 'kafka.Kafka'];
  // JVM crashes and anything logged before log4j starts land in console.log.
  const consoleFd = openSync(files.consoleLog, 'a');
  try {
    const child = spawn('java', [...args, files.serverProperties], {
      cwd: files.dataDir,
      stdio: ['ignore', consoleFd, consoleFd],
    });
    await once(child, 'spawn').catch((error: Error) => Promise.reject(toolError('java', error)));
    return child;
  } finally {
    closeSync(consoleFd);
  }
}

/** The broker's first errors (the cause) and its last lines (how far it got) for error messages. */
async function logExcerpt(files: BrokerFiles): Promise<string> {
  const read = (file: string) => readFile(file, 'utf8').catch(() => '');
  const [server, console] = await Promise.all([read(files.serverLog), read(files.consoleLog)]);
  // An ERROR line is often followed by the exception that names the cause (e.g. "Address
  // already in use"), so keep that next line too.
  const lines = server.split('\n');
  const errors = lines.flatMap((line, index) => {
    if (!/ (ERROR|FATAL) /.test(line)) return [];
    const next = lines[index + 1] ?? '';
    return next.startsWith('[') ? [line] : [line, next];
  });
  return [
    `--- first errors in ${files.serverLog} ---`,
    ...errors.slice(0, 8),
    `--- last lines of ${files.serverLog} ---`,
    tail(server, 15),
    `--- last lines of ${files.consoleLog} ---`,
    tail(console, 10),
  ].join('\n');
}

/** True once the broker answers a real Metadata request and lists itself. */
async function answersMetadata(kafka: Kafka): Promise<boolean> {
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    const { brokers } = await admin.describeCluster();
    return brokers.length > 0;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function waitUntilReady(broker: string, child: ChildProcess, files: BrokerFiles) {
  const kafka = new Kafka({
    clientId: 'local-kafka-ready-check',
    brokers: [broker],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.signalCode ?? `code ${child.exitCode}`;
      throw new Error(
        `Kafka broker exited (${how}) before it was ready\n${await logExcerpt(files)}`,
      );
    }
    if (await answersMetadata(kafka)) return;
    await delay(250);
  }
  const seconds = READY_TIMEOUT_MS / 1000;
  throw new Error(
    `Kafka broker on ${broker} did not answer within ${seconds}s\n${await logExcerpt(files)}`,
  );
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** SIGTERM lets Kafka shut down cleanly; SIGKILL only if it hangs past the deadline. */
async function terminate(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  if (await waitForExit(child, STOP_TIMEOUT_MS)) return;
  child.kill('SIGKILL');
  await waitForExit(child, STOP_TIMEOUT_MS);
}

// Runs in its own detached Node process, reading a pipe from ours. EOF without a byte first
// means our process died (crash, SIGTERM, SIGKILL: vitest, for one, exits on SIGTERM without
// running 'exit' listeners), so it kills the JVM and removes the temp data dir (argv: pid, dir).
const REAPER_SCRIPT = `
const [pid, dir] = process.argv.slice(1);
const alive = () => { try { process.kill(+pid, 0); return true; } catch { return false; } };
process.stdin.once('data', () => process.exit(0));
process.stdin.once('end', () => {
  if (alive()) process.kill(+pid, 'SIGKILL');
  const deadline = Date.now() + 5000;
  const cleanUp = () => {
    if (alive() && Date.now() < deadline) return setTimeout(cleanUp, 100);
    if (dir) require('node:fs').rmSync(dir, { recursive: true, force: true });
  };
  cleanUp();
});
`;

function startReaper(child: ChildProcess, tempDir: string): Writable {
  const args = ['-e', REAPER_SCRIPT, String(child.pid), tempDir];
  const reaper = spawn(process.execPath, args, {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Neither the reaper nor its pipe may keep this process alive.
  reaper.unref();
  const pipe = reaper.stdin as Socket;
  pipe.unref();
  return pipe;
}

/** Returns an idempotent stop() and makes sure the JVM dies with this process otherwise. */
function superviseBroker(child: ChildProcess, tempDir: string | undefined): () => Promise<void> {
  const reaper = startReaper(child, tempDir ?? '');
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= terminate(child).then(async () => {
      reaper.end('stand down');
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    });
    return stopping;
  };
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
