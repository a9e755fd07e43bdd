/**
 * The naive baseline the bridge is compared against, run as a child process by the benchmark:
 * a kafkajs consumer whose `eachMessage` validates a command, calls the platform through the
 * project's SigningClient (no rate limit, the bridge's pool size) and publishes one result event,
 * one message at a time per partition, `partitionsConsumedConcurrently` partitions at once,
 * offsets auto-committed. kafkajs is used directly here, on purpose: this is the thing measured.
 * Configured by BASELINE_* environment variables (see subjects.ts); prints `baseline consuming`
 * once it has joined its group, and stops on SIGTERM.
 */
import { once } from 'node:events';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { Pool } from 'undici';
import { SigningClient } from '../../../src/api-client/index.js';
import { encodeEvent } from '../../../src/producers/index.js';
import { type CommandType, topicNames } from '../../../src/schemas/messages/index.js';
import { APP } from '../contracts-setup.js';
import { handle } from './naive-handlers.js';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const topics = topicNames(env('BASELINE_TOPIC_PREFIX'));
const typeOf = new Map(Object.entries(topics.commands).map(([type, topic]) => [topic, type]));
const connections = Number(env('BASELINE_CONNECTIONS'));
const pool = new Pool(env('BASELINE_API_URL'), { connections });
const client = new SigningClient({
  baseUrl: env('BASELINE_API_URL'),
  ...APP,
  requestsPerSecond: 0,
  dispatcher: pool,
  // As many requests at once as the pool has connections.
  maxConcurrentRequests: connections,
});
const kafka = new Kafka({
  brokers: env('BASELINE_BROKERS').split(','),
  clientId: 'naive-baseline',
  logLevel: logLevel.WARN,
});
const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
const consumer = kafka.consumer({ groupId: env('BASELINE_GROUP_ID') });

await producer.connect();
await consumer.connect();
await consumer.subscribe({ topics: Object.values(topics.commands), fromBeginning: true });
await consumer.run({
  partitionsConsumedConcurrently: Number(env('BASELINE_PARTITIONS_AT_ONCE')),
  eachMessage: async ({ topic, message }) => {
    const handled = await handle(client, typeOf.get(topic) as CommandType, message.value);
    if (!handled) return;
    const { commandId, bizId } = handled.command;
    const address = { topic: topics.events, source: 'naive-baseline', bizId, commandId };
    const { key, value, headers } = encodeEvent(handled.event, address);
    await producer.send({
      topic: topics.events,
      messages: [{ key, value, headers: { ...headers } }],
    });
  },
});
process.stdout.write('baseline consuming\n');

await Promise.race([once(process, 'SIGTERM'), once(process, 'SIGINT')]);
await consumer.disconnect();
await producer.disconnect();
await pool.close();
