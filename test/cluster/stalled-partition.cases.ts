/**
 * Issue 32, deliverable 4: a retriable refusal holds what it must, and says so. On a three-node
 * cluster of this file's own (min.insync.replicas 2), one ledger partition's replicas are reduced
 * to two nodes (2 leading, and 3), then node 3 is stopped: that partition's ISR is below its
 * min.insync.replicas, and the bridge's writes to it are refused with NOT_ENOUGH_REPLICAS, a
 * refusal that may pass, again and again, while it still reads the partition. The one outbox
 * keeps its writes in order (docs/design.md, "When Kafka refuses a write"), so every write waits
 * behind them; the stall must be visible: /readyz answers 503 naming kafka-writes, the ledger
 * topic, the partition and its replicas in sync, and signing_bridge_kafka_write_stalled and
 * signing_bridge_kafka_write_errors_total say the same. Once node 3 is back, every command has
 * one ending and no reminder reaches the platform twice.
 *
 * Not this shape: the partition's only replica stopped. It then has no leader, and kafkajs'
 * consumer, which reads the ledger, gives up fetching it and crashes, again and again: the bridge
 * loses its lease and /readyz names that, not the partition (see the report of issue 32).
 *
 * On the cluster of test/cluster/cluster.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LocalKafkaCluster } from '../../scripts/local-kafka/cluster.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { GroupCase } from '../group/group-case.js';
import { reminderLoad } from '../group/reminders.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { healthAnswer } from '../support/health.js';
import { murmur2Partition } from '../support/partitions.js';
import { freePort } from '../support/service-pipeline.js';
import { waitUntil } from '../support/wait.js';
import type { OnCluster } from './on-cluster.js';

/** GroupCase's topics' partition count (the bridge's default). */
const PARTITIONS = 12;
const LEADER = 2;
const STOPPED = 3;
const BOUND_MS = 60_000;

let cluster: LocalKafkaCluster;
let sim: RunningSimulator;
let run: GroupCase | undefined;

/**
 * The ledger's `partition` moved to nodes LEADER and STOPPED only, LEADER leading; resolves once
 * the cluster says so, both in sync.
 */
async function onTwoNodes(ledger: string, partition: number): Promise<void> {
  const admin = harnessKafkaClient([...cluster.brokers]).admin();
  await admin.connect();
  try {
    await admin.alterPartitionReassignments({
      topics: [
        { topic: ledger, partitionAssignment: [{ partition, replicas: [LEADER, STOPPED] }] },
      ],
    });
  } finally {
    await admin.disconnect();
  }
  await waitUntil(() => cluster.replicas(), {
    what: `${ledger}/${partition} on nodes ${LEADER} and ${STOPPED}, led by ${LEADER}`,
    until: ({ partitions }) =>
      partitions.some(
        (p) =>
          p.topic === ledger &&
          p.partition === partition &&
          p.replicas.join() === `${LEADER},${STOPPED}` &&
          p.isr.length === 2 &&
          p.leader === LEADER,
      ),
    timeoutMs: 60_000,
  });
}

/** A ledger partition with fewer replicas in sync than its min.insync.replicas. */
export function stalledPartitionCases(on: OnCluster): void {
  beforeAll(() => {
    cluster = on.cluster();
    sim = on.sim();
  });
  afterAll(async () => {
    await run?.close();
  });

  it('when every write of the instance waits behind it, then /readyz and signing_bridge_kafka_write_stalled name the ledger topic, the partition and its replicas in sync, and the errors are counted as NOT_ENOUGH_REPLICAS; once its node is back, every command has one ending and no reminder reaches the platform twice', async () => {
    run = await GroupCase.open([...cluster.brokers], sim.url);
    const load = await reminderLoad(sim, { contracts: 6, perContract: 2, label: 'stall' });
    const ledger = run.topics.ledger;
    // The partition of the first contract's commands (command topics and ledger share it).
    const stuck = murmur2Partition(load.bizIds[0] as string, PARTITIONS);
    await onTwoNodes(ledger, stuck);
    const healthPort = await freePort();
    await run.join('a', { HTTP_PORT: String(healthPort) });
    await healthAnswer(healthPort, '/readyz', 200);

    await cluster.stop(STOPPED);
    await run.sender.send(load.commands);
    const named = `${ledger} partition ${stuck}: 1 replica(s) in sync, below its min.insync.replicas 2`;
    // kafkajs retries a send for about 30 s before the outbox hears of it, then 5 s of grace.
    const stalled = await waitUntil(() => healthAnswer(healthPort, '/readyz', 503), {
      what: `/readyz naming ${named}`,
      until: (body) => body.includes(named),
      timeoutMs: 120_000,
    });
    expect(stalled).toContain('kafka-writes');
    const metrics = await healthAnswer(healthPort, '/metrics', 200);
    expect(metrics).toContain(
      `signing_bridge_kafka_write_stalled{topic="${ledger}",partition="${stuck}",problem="under-min-isr"} 1`,
    );
    expect(metrics).toMatch(
      /signing_bridge_kafka_write_errors_total\{error="NOT_ENOUGH_REPLICAS"\} [1-9]/,
    );

    await cluster.start(STOPPED);
    const { line, problems } = await run.verdict(sim, load, BOUND_MS, []);
    console.log(
      `[stalled-partition] ${line}; /readyz while stalled: ${stalled.replaceAll('\n', ' ')}`,
    );
    expect(problems).toEqual({});
    await healthAnswer(healthPort, '/readyz', 200);
  }, 420_000);
}
