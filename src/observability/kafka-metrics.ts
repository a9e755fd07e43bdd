/**
 * The bridge's side of Kafka: readiness and the consumer's contact with its group (read at each
 * scrape), and the lag of each command partition this instance owns. A partition's series go
 * when it is no longer owned, so the label sets are bounded by the partitions held.
 */
import { Gauge, type Registry } from 'prom-client';
import type { PartitionLag } from '../consumers/index.js';

/** What the service says of itself, read when Prometheus scrapes. */
export interface ServiceStatus {
  ready(): boolean;
  kafkaConnected(): boolean;
  /** Whether its lease on its partitions holds (src/partitions/lease.ts). */
  leaseHeld(): boolean;
}

const NOT_STARTED: ServiceStatus = {
  ready: () => false,
  kafkaConnected: () => false,
  leaseHeld: () => false,
};

export interface KafkaMetrics {
  partitionLags(lags: readonly PartitionLag[]): void;
}

export function kafkaMetrics(
  registry: Registry,
  prefix: string,
  status: ServiceStatus = NOT_STARTED,
): KafkaMetrics {
  const registers = [registry];
  new Gauge({
    registers,
    name: `${prefix}ready`,
    help: 'Whether the bridge is ready (consuming, as /readyz says): 1 or 0',
    collect() {
      this.set(status.ready() ? 1 : 0);
    },
  });
  new Gauge({
    registers,
    name: `${prefix}kafka_connected`,
    help: 'Whether the consumer heard from its group (heartbeat, fetch, join) in the last 10 s: 1 or 0',
    collect() {
      this.set(status.kafkaConnected() ? 1 : 0);
    },
  });
  new Gauge({
    registers,
    name: `${prefix}lease_held`,
    help: 'Whether this instance may act for its partitions: 1, or 0 from the moment its lease on them ended (no answer of the group coordinator for 6 s, or its consumer crashed) until the group answers again',
    collect() {
      this.set(status.leaseHeld() ? 1 : 0);
    },
  });
  const labelNames = ['topic', 'partition'] as const;
  const lag = new Gauge({
    registers,
    name: `${prefix}consumer_lag`,
    help: 'Records of an owned command partition not yet committed: high-water mark less committed offset',
    labelNames,
  });
  const unfetched = new Gauge({
    registers,
    name: `${prefix}consumer_lag_unfetched`,
    help: 'Records of an owned command partition not yet taken in hand: high-water mark less the next offset in hand',
    labelNames,
  });
  let reported = new Set<string>();
  return {
    partitionLags(lags) {
      const now = new Set<string>();
      for (const { topic, partition, highWatermark, committed, nextInHand } of lags) {
        const labels = { topic, partition: String(partition) };
        now.add(JSON.stringify(labels));
        lag.set(labels, Number(nonNegative(highWatermark - committed)));
        unfetched.set(labels, Number(nonNegative(highWatermark - nextInHand)));
      }
      for (const gone of reported) {
        if (now.has(gone)) continue;
        lag.remove(JSON.parse(gone));
        unfetched.remove(JSON.parse(gone));
      }
      reported = now;
    },
  };
}

/** A commit or fetch ahead of the end read a moment earlier is no lag. */
function nonNegative(value: bigint): bigint {
  return value > 0n ? value : 0n;
}
