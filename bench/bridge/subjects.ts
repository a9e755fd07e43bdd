/**
 * The things measured, each started in a child process of its own so that its CPU time and
 * memory are its own: the bridge (`signing-bridge run`, configured by environment variables and
 * with the image's NODE_OPTIONS, as in production), the naive baseline
 * (baseline/naive-consumer.ts), compiled or under tsx, and with --pc Confluent's
 * parallel-consumer doing the baseline's work on the JVM (bench/parallel-consumer/).
 */

import { join } from 'node:path';
import { schemaId, topicNames } from '../../src/schemas/messages/index.js';
import { NodeChild, ROOT } from '../support/child-process.js';
import { IMAGE_NODE_OPTIONS } from '../support/image-node-options.js';
import type { Entries } from './build.js';
import { APP } from './contracts-setup.js';
import { PARTITIONS } from './kafka-io.js';
import { LIVE_HEAP_LINE } from './live-heap.js';
import type { Options } from './options.js';

export interface SubjectContext {
  /** What to run: compiled JavaScript or TypeScript under tsx. */
  readonly entries: Entries;
  readonly brokers: readonly string[];
  readonly simulatorUrl: string;
  /** Topics of this run: `<prefix>commands.<type>`, `<prefix>events`, ... */
  readonly topicPrefix: string;
  /**
   * Keep-alive connections to the platform (the same for both subjects), and the bridge's
   * commands at once: with fewer connections than commands, commands wait for a connection.
   */
  readonly connections: number;
  /** Platform requests per second; 0 = unlimited. */
  readonly requestsPerSecond: number;
  /** Port of the subject's /metrics, when it has one (0: none). */
  readonly metricsPort: number;
  /** Node flags and more environment for the bridge (not the baseline), to try settings. */
  readonly tuning: Pick<Options, 'bridgeFlags' | 'bridgeEnv'>;
  /** The scenario's own environment for the bridge, over the tuning's. */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** Writes the subject's V8 CPU profile there when it exits. */
  readonly cpuProfDir?: string | undefined;
  /** Preloads bench/support/gc-tally.mjs (--gc-tally): a Node subject's collections, counted. */
  readonly gcTally?: boolean | undefined;
  /** With gcTally, where it writes a sampling heap profile of the backlog (--heap-sample). */
  readonly heapSampleDir?: string | undefined;
}

export type SubjectName = 'bridge' | 'baseline' | 'parallel-consumer';

export interface Subject {
  readonly name: SubjectName;
  /** Whether it serves Prometheus metrics (see bridge-metrics.ts). */
  readonly metrics: boolean;
  /** Whether it runs on Node and so can count its garbage collections (--gc-tally). */
  readonly gcTally: boolean;
  start(context: SubjectContext): NodeChild;
  /** The output line that says it consumes. */
  readonly ready: RegExp;
}

/** The line bench/support/gc-tally.mjs answers a SIGUSR2 with, on stderr. */
export const GC_TALLY_LINE = /^gc-tally (\{.*\})$/;

/** Warnings, errors and fatal lines of a pino JSON log on stdout, and all of stderr. */
const echoProblems = (line: string, stream: 'stdout' | 'stderr') =>
  (stream === 'stderr' && !GC_TALLY_LINE.test(line) && !LIVE_HEAP_LINE.test(line)) ||
  /"level":[456]0/.test(line);

/** The bridge's log line of each change of its share of the platform budget. */
export const SHARE_CHANGED = '"msg":"platform budget share changed"';

const profiling = (context: SubjectContext) => [
  ...(context.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', context.cpuProfDir] : []),
  ...(context.gcTally ? ['--import', join(ROOT, 'bench/support/gc-tally.mjs')] : []),
];

const heapSampling = (context: SubjectContext): Record<string, string> =>
  context.gcTally && context.heapSampleDir
    ? { BENCH_HEAP_SAMPLE_DIR: join(ROOT, context.heapSampleDir) }
    : {};

export const BRIDGE: Subject = {
  name: 'bridge',
  metrics: true,
  gcTally: true,
  ready: /"msg":"signing-bridge running"/,
  start: (context) =>
    new NodeChild({
      name: 'bridge',
      nodeFlags: [...profiling(context), ...context.tuning.bridgeFlags],
      tsx: context.entries.tsx,
      args: [context.entries.bridge, 'run'],
      echo: echoProblems,
      keep: (line) => line.includes(SHARE_CHANGED),
      env: {
        NODE_OPTIONS: IMAGE_NODE_OPTIONS,
        KAFKA_BROKERS: context.brokers.join(','),
        KAFKA_CLIENT_ID: 'bench-bridge',
        KAFKA_GROUP_ID: `${context.topicPrefix}bridge`,
        TOPIC_PREFIX: context.topicPrefix,
        TOPIC_PARTITIONS: String(PARTITIONS),
        SIGNING_API_BASE_URL: context.simulatorUrl,
        SIGNING_APP_TOKEN: APP.appToken,
        SIGNING_APP_SECRET: APP.appSecret,
        SIGNING_RPS: String(context.requestsPerSecond),
        SIGNING_CONNECTIONS: String(context.connections),
        MAX_IN_FLIGHT: String(context.connections),
        SHUTDOWN_DEADLINE_MS: '5000',
        HTTP_PORT: String(context.metricsPort),
        HTTP_HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        ...heapSampling(context),
        ...context.tuning.bridgeEnv,
        ...context.env,
      },
    }),
};

export const BASELINE: Subject = {
  name: 'baseline',
  metrics: false,
  gcTally: true,
  ready: /^baseline consuming/,
  start: (context) =>
    new NodeChild({
      name: 'baseline',
      nodeFlags: profiling(context),
      tsx: context.entries.tsx,
      args: [context.entries.baseline],
      echo: (line, stream) => stream === 'stderr' && !GC_TALLY_LINE.test(line),
      env: {
        BASELINE_BROKERS: context.brokers.join(','),
        BASELINE_GROUP_ID: `${context.topicPrefix}baseline`,
        BASELINE_TOPIC_PREFIX: context.topicPrefix,
        BASELINE_API_URL: context.simulatorUrl,
        BASELINE_CONNECTIONS: String(context.connections),
        BASELINE_PARTITIONS_AT_ONCE: String(PARTITIONS),
        ...heapSampling(context),
      },
    }),
};

/** The JVM's heap limit for the parallel-consumer subject. */
export const PC_JAVA_FLAGS = ['-Xmx256m'] as const;

export const PARALLEL_CONSUMER: Subject = {
  name: 'parallel-consumer',
  metrics: false,
  gcTally: false,
  ready: /^parallel-consumer consuming/,
  start: (context) => {
    const jar = context.entries.parallelConsumer;
    if (!jar) throw new Error('the parallel-consumer subject was not built (run with --pc)');
    const topics = topicNames(context.topicPrefix);
    return new NodeChild({
      name: 'parallel-consumer',
      command: 'java',
      args: [...PC_JAVA_FLAGS, '-jar', jar],
      env: {
        PC_BROKERS: context.brokers.join(','),
        PC_GROUP_ID: `${context.topicPrefix}parallel-consumer`,
        PC_COMMAND_TOPICS: Object.entries(topics.commands)
          .map(([type, topic]) => `${topic}=${type}`)
          .join(','),
        PC_EVENTS_TOPIC: topics.events,
        PC_SOURCE: 'parallel-consumer',
        // ce_dataschema is this prefix and the event type, as encodeEvent writes it.
        PC_SCHEMA_PREFIX: schemaId('events', ''),
        PC_API_URL: context.simulatorUrl,
        PC_APP_TOKEN: APP.appToken,
        PC_APP_SECRET: APP.appSecret,
        PC_MAX_CONCURRENCY: String(context.connections),
      },
    });
  },
};
