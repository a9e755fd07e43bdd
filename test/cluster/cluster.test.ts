/**
 * Every test on a three-node cluster, in this one file (issue 32): one cluster of three KRaft
 * nodes (scripts/local-kafka/cluster.ts: replication 3, min.insync.replicas 2, unclean election
 * off) and one simulator serve its cases in turn, while the rest of the suite runs beside it on
 * the global single broker. Each group of cases leaves every node running; the next waits until
 * every partition is in sync before it starts.
 *
 *   npx vitest run --project integration test/cluster/cluster.test.ts
 *   npx vitest run --project integration test/cluster/cluster.test.ts -t 'rolling restart'
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { type LocalKafkaCluster, startLocalCluster } from '../../scripts/local-kafka/cluster.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { localClusterCases } from './local-cluster.cases.js';
import type { OnCluster } from './on-cluster.js';
import { rollingRestartCases } from './rolling-restart.cases.js';
import { stalledPartitionCases } from './stalled-partition.cases.js';

let cluster: LocalKafkaCluster | undefined;
let sim: RunningSimulator | undefined;
const started = <T>(what: string, value: T | undefined): T => {
  if (value === undefined) throw new Error(`${what} did not start`);
  return value;
};
const on: OnCluster = {
  cluster: () => started('the cluster', cluster),
  sim: () => started('the simulator', sim),
};

beforeAll(async () => {
  [cluster, sim] = await Promise.all([
    startLocalCluster({ nodes: 3 }),
    startSimulator({ log: false, callLogLimit: 100_000 }),
  ]);
}, 180_000);

afterAll(async () => {
  await sim?.stop();
  await cluster?.shutdown();
});

/** Waits until every partition of the cluster is in sync again, before the next group's cases. */
const inSync = () => beforeAll(() => on.cluster().waitInSync({ timeoutMs: 120_000 }), 150_000);

describe('a local cluster of three KRaft nodes', () => localClusterCases(on));

describe('a ledger partition with fewer replicas in sync than its min.insync.replicas', () => {
  inSync();
  stalledPartitionCases(on);
});

describe.each(['at-least-once', 'exactly-once'])('a rolling restart, delivery mode %s', (mode) => {
  inSync();
  rollingRestartCases(on, mode);
});
