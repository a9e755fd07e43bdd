/**
 * The service as deployed, in this process: configuration from an environment, the composition
 * root, its health and metrics server, topics of its own on the real broker, the simulator as
 * the platform; a producer of commands and a reader of every record it writes, as they are.
 */

import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Logger } from 'pino';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/index.js';
import { type TopicNames, topicNames } from '../../src/schemas/messages/index.js';
import { type Service, startService } from '../../src/service.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { serviceEnvironment } from '../e2e/support/service-process.js';
import { CommandSender } from './command-sender.js';
import { TopicReader } from './topic-reader.js';
import { uniquePrefix } from './topics.js';

export interface ServicePipeline {
  readonly brokers: string[];
  readonly topics: TopicNames;
  readonly prefix: string;
  readonly sim: RunningSimulator;
  readonly sender: CommandSender;
  /** Every record of the events and dead-letter topics. */
  readonly reader: TopicReader;
  readonly service: Service;
  /** The text /metrics serves now. */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

export async function startServicePipeline(options: {
  brokers: string;
  env?: Record<string, string>;
  log?: Logger;
}): Promise<ServicePipeline> {
  const prefix = uniquePrefix();
  const topics = topicNames(prefix);
  const brokers = options.brokers.split(',');
  const sim = await startSimulator({ log: false });
  const port = await freePort();
  const config = loadConfig({
    ...serviceEnvironment(prefix, sim.url, { KAFKA_BROKERS: options.brokers }),
    KAFKA_GROUP_ID: `pipeline-${prefix}`,
    RETRY_MAX_ATTEMPTS: '3',
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: String(port),
    ...options.env,
  });
  const service = await startService(config, options.log ?? pino({ level: 'warn' }));
  const sender = await CommandSender.connect(brokers, topics);
  const reader = await TopicReader.start(brokers, [topics.events, topics.deadLetter]);
  const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const stop = async () => {
    await reader.stop();
    await sender.close();
    await service.stop();
    await sim.stop();
  };
  return { brokers, topics, prefix, sim, sender, reader, service, metrics, stop };
}
