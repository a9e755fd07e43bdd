/**
 * Issue 32, deliverable 4: a retriable refusal holds what it must, and says so. On the three-node
 * cluster of test/cluster/cluster.test.ts, one ledger partition's replicas are reduced to one
 * node (3), as the issue says, then node 3 is stopped: the partition has no leader (unclean
 * election is off), and the bridge's writes to it fail again and again, a refusal that may pass,
 * while it still reads every other partition (the declared kafkajs patch keeps a partition
 * without a leader in the metadata; before it, the consumer crashed again and again). The one
 * outbox keeps its writes in order (docs/design.md, "When Kafka refuses a write"), so every
 * write waits behind them; the stall must be visible: /readyz answers 503 naming kafka-writes,
 * the ledger topic, the partition, that it has no leader and which broker is not running, and
 * signing_bridge_kafka_write_stalled and signing_bridge_kafka_write_errors_total say the same;
 * the consumer does not crash meanwhile (no kafka-consumer cause). Once node 3 is back, every
 * command has one ending and no reminder reaches the platform twice.
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
const STOPPED = 3;
const BOUND_MS = 60_000;

let cluster: LocalKafkaCluster;
let sim: RunningSimulator;
let run: GroupCase | undefined;

/**
 * The ledger's `partition` moved to node STOPPED alone; resolves once the cluster says so (its
 * one replica in sync and leading: the controller elects it once the others are removed).
 */
async function onOneNode(ledger: string, partition: number): Promise<void> {
  const admin = harnessKafkaClient([...cluster.brokers]).admin();
  await admin.connect();
  try {
    await admin.alterPartitionReassignments({
      topics: [{ topic: ledger, partitionAssignment: [{ partition, replicas: [STOPPED] }] }],
    });
  } finally {
    await admin.disconnect();
  }
  await waitUntil(() => cluster.replicas(), {
    what: `${ledger}/${partition} on node ${STOPPED} alone, leading`,
    until: ({ partitions }) =>
      partitions.some(
        (p) =>
          p.topic === ledger &&
          p.partition === partition &&
          p.replicas.join() === `${STOPPED}` &&
          p.isr.join() === `${STOPPED}` &&
          p.leader === STOPPED,
      ),
    timeoutMs: 60_000,
  });
}

/** A ledger partition whose only replica's node is stopped: no leader. */
export function stalledPartitionCases(on: OnCluster): void {
  beforeAll(() => {
    cluster = on.cluster();
    sim = on.sim();
  });
  afterAll(async () => {
    await run?.close();
  });

  it('when every write of the instance waits behind it, then /readyz and signing_bridge_kafka_write_stalled name the ledger topic, the partition, that it has no leader and the broker not running, the failed writes are counted, and the consumer does not crash; once its node is back, every command has one ending and no reminder reaches the platform twice', async () => {
    run = await GroupCase.open([...cluster.brokers], sim.url);
    const load = await reminderLoad(sim, { contracts: 6, perContract: 2, label: 'stall' });
    const ledger = run.topics.ledger;
    // The partition of the first contract's commands (command topics and ledger share it).
    const stuck = murmur2Partition(load.bizIds[0] as string, PARTITIONS);
    await onOneNode(ledger, stuck);
    const healthPort = await freePort();
    await run.join('a', { HTTP_PORT: String(healthPort) });
    await healthAnswer(healthPort, '/readyz', 200);

    await cluster.stop(STOPPED);
    await run.sender.send(load.commands);
    const named = `${ledger} partition ${stuck} has no leader: its replicas on brokers ${STOPPED}`;
    // kafkajs tries a send for 16 to 18 s before the outbox hears of it, then 5 s of grace.
    const stalled = await waitUntil(() => healthAnswer(healthPort, '/readyz', 503), {
      what: `/readyz naming ${named}`,
      until: (body) => body.includes(named),
      timeoutMs: 120_000,
    });
    expect(stalled).toContain('kafka-writes');
    expect(stalled).toContain(`brokers ${STOPPED} not running`);
    expect(stalled).not.toContain('KAFKA_STORAGE_ERROR');
    expect(stalled).not.toContain('kafka-consumer');
    const metrics = await healthAnswer(healthPort, '/metrics', 200);
    expect(metrics).toContain(
      `signing_bridge_kafka_write_stalled{topic="${ledger}",partition="${stuck}",problem="no-leader"} 1`,
    );
    expect(metrics).toMatch(/signing_bridge_kafka_write_errors_total\{error="[^"]+"\} [1-9]/);

    await cluster.start(STOPPED);
    const { line, problems } = await run.verdict(sim, load, BOUND_MS, []);
    const errors = metrics.match(/signing_bridge_kafka_write_errors_total\{[^}]*\} \d+/g) ?? [];
    console.log(
      `[stalled-partition] ${line}; /readyz while stalled: ${stalled.replaceAll('\n', ' ')}; ${errors.join(', ')}`,
    );
    expect(problems).toEqual({});
    await healthAnswer(healthPort, '/readyz', 200);
  }, 420_000);
}
