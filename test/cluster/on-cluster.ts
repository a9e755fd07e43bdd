// What test/cluster/cluster.test.ts shares with each group of cases it runs.
import type { LocalKafkaCluster } from '../../scripts/local-kafka/cluster.js';
import type { RunningSimulator } from '../../src/simulator/index.js';

/** The file's one three-node cluster and simulator, started before any case runs. */
export interface OnCluster {
  cluster(): LocalKafkaCluster;
  sim(): RunningSimulator;
}
