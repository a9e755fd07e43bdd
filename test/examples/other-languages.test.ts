/**
 * The examples in other languages, run as their users run them, against the real broker with
 * the service and the simulator: examples/python (confluent-kafka, librdkafka) and examples/java
 * (kafka-clients, built with Maven from Central). Each sends a create-contract and prints the
 * event that ends it; its command must land on murmur2's partition for its bizId, as the
 * bridge's own producers put it. Run when python3 (and java with mvn) are on PATH, as on CI.
 */
import { execFile } from 'node:child_process';
import { promisify, stripVTControlCharacters } from 'node:util';
import { type PartitionerArgs, Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ServicePipeline, startServicePipeline } from '../support/service-pipeline.js';
import { onPath, pythonVenv, REPO_ROOT } from '../support/tools.js';
import { TopicReader } from '../support/topic-reader.js';
import { uniqueId } from '../support/unique.js';

const PARTITIONS = 12;
let pipeline: ServicePipeline;
let commands: TopicReader;

beforeAll(async () => {
  pipeline = await startServicePipeline({
    brokers: inject('kafkaBrokers'),
    env: { TOPIC_PARTITIONS: String(PARTITIONS) },
  });
  commands = await TopicReader.start(pipeline.brokers, [
    pipeline.topics.commands['create-contract'],
  ]);
}, 120_000);
afterAll(async () => {
  await commands?.stop();
  await pipeline?.stop();
});

/** The partition Java's default partitioner (murmur2) gives a key among `PARTITIONS`. */
function murmur2Partition(key: string): number {
  const partitionMetadata = Array.from({ length: PARTITIONS }, (_, partitionId) => ({
    partitionId,
    leader: 0,
  }));
  const args = { topic: 't', partitionMetadata, message: { key } } as PartitionerArgs;
  return Partitioners.DefaultPartitioner()(args);
}

/**
 * Runs an example with the pipeline's settings; its one JSON line. Asynchronously: the service
 * runs in this process, and must go on while the example waits for its event.
 */
async function runExample(command: string, args: string[], bizId: string) {
  const result = await promisify(execFile)(command, args, {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 300_000,
    env: {
      ...process.env,
      KAFKA_BROKERS: pipeline.brokers.join(','),
      TOPIC_PREFIX: pipeline.prefix,
      BIZ_ID: bizId,
      TIMEOUT_S: '60',
    },
  });
  // Maven writes terminal escapes around what the program prints, even in batch mode.
  const lines = stripVTControlCharacters(result.stdout).split('\n');
  const line = lines.find((text) => text.startsWith('{"type"'));
  if (line === undefined) throw new Error(`no event printed:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(line) as {
    type: string;
    subject: string;
    data: { commandId: string; bizId: string; initiated: boolean };
  };
}

async function expectOnMurmur2Partition(bizId: string) {
  await commands.waitUntil((records) => records.some((r) => r.key === bizId), 10_000, bizId);
  const record = commands.records.find((r) => r.key === bizId);
  expect(record?.partition).toBe(murmur2Partition(bizId));
}

describe('examples in other languages', () => {
  it.skipIf(!onPath('python3'))(
    'when examples/python/create_contract.py runs, then its command lands on the murmur2 partition and it prints contract.created',
    async () => {
      const python = pythonVenv('examples-python');
      const bizId = uniqueId('python');
      const event = await runExample(python, ['examples/python/create_contract.py'], bizId);
      expect(event).toMatchObject({
        type: 'signingbridge.contract.created',
        subject: bizId,
        data: { commandId: `${bizId}-create`, bizId, initiated: false },
      });
      await expectOnMurmur2Partition(bizId);
    },
    300_000,
  );

  it.skipIf(!onPath('java', '-version') || !onPath('mvn'))(
    'when examples/java runs (mvn compile exec:java), then its command lands on the murmur2 partition and it prints contract.created',
    async () => {
      const bizId = uniqueId('java');
      const event = await runExample(
        'mvn',
        [
          '--batch-mode',
          '--quiet',
          '-Dstyle.color=never',
          '-f',
          'examples/java/pom.xml',
          'compile',
          'exec:java',
        ],
        bizId,
      );
      expect(event).toMatchObject({
        type: 'signingbridge.contract.created',
        subject: bizId,
        data: { commandId: `${bizId}-create`, bizId, initiated: false },
      });
      await expectOnMurmur2Partition(bizId);
    },
    300_000,
  );
});
