// Starting the broker's JVM and waiting until it answers, with the broker's own log lines in
// the error when it does not.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import type { BrokerFiles } from './broker-files.js';
import { lastLines, toolError } from './tool-run.js';

const READY_TIMEOUT_MS = 90_000;

export async function launchBroker(
  libs: string,
  files: BrokerFiles,
  heapMb: number,
  jvmFlags: readonly string[] = [],
) {
  const jvm = [
    `-Xmx${heapMb}m`,
    `-Xms${Math.min(256, heapMb)}m`,
    '-Djava.awt.headless=true',
    ...jvmFlags,
  ];
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

/** A node's PLAINTEXT listener and the id it registers with. */
export interface NodeAddress {
  broker: string;
  nodeId: number;
}

/** Until the node answers a Metadata request on its own listener and lists itself as a broker. */
export async function waitUntilReady(
  { broker, nodeId }: NodeAddress,
  child: ChildProcess,
  files: BrokerFiles,
) {
  const kafka = new Kafka({
    clientId: 'local-kafka-ready-check',
    brokers: [broker],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
    // The client's own retries (5 by default) would spend seconds backing off from a refused
    // connection before this loop may look again.
    retry: { retries: 0 },
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.signalCode ?? `code ${child.exitCode}`;
      throw new Error(
        `Kafka broker exited (${how}) before it was ready\n${await logExcerpt(files)}`,
      );
    }
    if (await listsItself(kafka, nodeId)) return;
    await delay(250);
  }
  const seconds = READY_TIMEOUT_MS / 1000;
  throw new Error(
    `Kafka broker on ${broker} did not answer within ${seconds}s\n${await logExcerpt(files)}`,
  );
}

/**
 * True once the broker answers a real Metadata request and lists itself: a cluster's node is
 * listed once the controller has unfenced it, so it serves and can take partitions.
 */
async function listsItself(kafka: Kafka, nodeId: number): Promise<boolean> {
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    const { brokers } = await admin.describeCluster();
    return brokers.some((broker) => broker.nodeId === nodeId);
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
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
    lastLines(server, 15),
    `--- last lines of ${files.consoleLog} ---`,
    lastLines(console, 10),
  ].join('\n');
}
