/**
 * One size of the ledger scale benchmark: a ledger with `historyBizIds` bizIds of history, of
 * which `windowBizIds` were active within the replay window, written first; then the bridge as
 * it ships (compiled, the image's NODE_OPTIONS) starts on it: time to ready, CPU to ready, peak
 * RSS, live heap and entries held; then the end-to-end latency of new commands; and, when
 * asked, a second bridge joining so that half the partitions move, with the latency of commands
 * sent to them meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import type { Command } from '../../src/schemas/messages/index.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { freePort } from '../bridge/bridge-metrics.js';
import type { Entries } from '../bridge/build.js';
import { EventTally } from '../bridge/event-tally.js';
import { CommandWriter, createTopics, PARTITIONS } from '../bridge/kafka-io.js';
import { LIVE_HEAP_FLAGS, liveHeapBytes } from '../bridge/live-heap.js';
import { percentiles, round } from '../bridge/stats.js';
import { BRIDGE } from '../bridge/subjects.js';
import { PERSON } from '../bridge/workload.js';
import type { NodeChild } from '../support/child-process.js';
import { cpuSeconds, ResourceSampler } from '../support/proc-stats.js';
import { writeHistory } from './history.js';

const DAY_MS = 86_400_000;
const WINDOW_MS = 7 * DAY_MS;

export interface SizeOptions {
  readonly historyBizIds: number;
  readonly windowBizIds: number;
  readonly commands: number;
  readonly rebalance: boolean;
}

export interface Context {
  readonly entries: Entries;
  readonly brokers: string[];
  readonly kafka: Parameters<typeof createTopics>[0];
  readonly simulatorUrl: string;
  readonly progress: (line: string) => void;
}

export interface SizeResult {
  readonly historyBizIds: number;
  readonly windowBizIds: number;
  readonly ledgerRecords: number;
  readonly writeSeconds: number;
  readonly startupSeconds: number;
  readonly restoreCpuSeconds: number;
  readonly peakRssMb: number;
  readonly liveHeapMb: number;
  readonly entriesHeld: number;
  readonly commandLatencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** How the new commands ended: success events, failure events, none within the wait. */
  readonly newCommands: NewCommands;
  readonly rebalance?: {
    readonly partitionsMoved: number;
    readonly movedCommands: number;
    readonly waitMs: { readonly p50: number; readonly p99: number; readonly max: number };
  };
  readonly exitedEarly: boolean;
}

export interface NewCommands {
  readonly sent: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly notEnded: number;
}

export async function measureSize(context: Context, options: SizeOptions): Promise<SizeResult> {
  const prefix = `ledger-${options.historyBizIds}-${randomUUID().slice(0, 6)}.`;
  const topics = topicNames(prefix);
  await createTopics(context.kafka, topics);
  const written = Date.now();
  const old = options.historyBizIds - options.windowBizIds;
  // A year of history would make the broker roll a segment per hour of record time: the old
  // history is dated just before the window (a restore skips it all the same), the active
  // bizIds over the window's last six hours.
  context.progress(`writing ${old} old and ${options.windowBizIds} active bizIds`);
  await writeHistory(context.brokers, topics.ledger, {
    prefix: 'old-',
    count: old,
    fromMs: written - WINDOW_MS - 2 * 3_600_000,
    toMs: written - WINDOW_MS - 3_600_000,
    active: false,
  });
  await writeHistory(context.brokers, topics.ledger, {
    prefix: 'active-',
    count: options.windowBizIds,
    fromMs: written - 6 * 3_600_000,
    toMs: written - 60_000,
    active: true,
  });
  const writeSeconds = (Date.now() - written) / 1000;

  const first = await startBridge(context, prefix);
  const { bridge, sampler } = first;
  try {
    const atReady = await measureStart(first);
    const { latency, newCommands } = await measureCommands(
      context,
      topics,
      options.commands,
      bridge,
    );
    const rebalance = options.rebalance
      ? await measureRebalance(context, prefix, topics)
      : undefined;
    return {
      historyBizIds: options.historyBizIds,
      windowBizIds: options.windowBizIds,
      ledgerRecords: old * 3 + options.windowBizIds * 6,
      writeSeconds: round(writeSeconds, 1),
      ...atReady,
      peakRssMb: round(Math.max(...sampler.samples.map((s) => s.rssMb)), 0),
      commandLatencyMs: latency,
      newCommands,
      ...(rebalance && { rebalance }),
      exitedEarly: !bridge.running,
    };
  } finally {
    sampler.stop();
    await bridge.stop();
  }
}

interface Started {
  readonly bridge: NodeChild;
  readonly sampler: ResourceSampler;
  readonly metricsPort: number;
  readonly spawnedAt: number;
  readonly acquired: Array<{ partition: number; entries: number }>;
}

async function startBridge(context: Context, prefix: string): Promise<Started> {
  const metricsPort = await freePort();
  const spawnedAt = Date.now();
  const bridge = BRIDGE.start({
    entries: context.entries,
    brokers: context.brokers,
    simulatorUrl: context.simulatorUrl,
    topicPrefix: prefix,
    connections: 64,
    requestsPerSecond: 0,
    metricsPort,
    tuning: { bridgeFlags: LIVE_HEAP_FLAGS, bridgeEnv: {} },
  });
  const sampler = new ResourceSampler(bridge.pid, 100);
  const acquired: Started['acquired'] = [];
  bridge.onLine((line) => {
    const match = /"partition":(\d+),"entries":(\d+).*"msg":"partition acquired"/.exec(line);
    if (match) acquired.push({ partition: Number(match[1]), entries: Number(match[2]) });
  });
  return { bridge, sampler, metricsPort, spawnedAt, acquired };
}

async function measureStart(started: Started) {
  await started.bridge.waitForLine(BRIDGE.ready, 300_000);
  const startupSeconds = (Date.now() - started.spawnedAt) / 1000;
  const restoreCpuSeconds = (await cpuSeconds(started.bridge.pid)) ?? Number.NaN;
  // After a full collection: what the entries hold, not the restore's garbage.
  const live = await liveHeapBytes(started.bridge);
  const liveHeapMb = live === undefined ? Number.NaN : round(live / 2 ** 20, 1);
  return {
    startupSeconds: round(startupSeconds, 2),
    restoreCpuSeconds: round(restoreCpuSeconds, 2),
    liveHeapMb,
    entriesHeld: started.acquired.reduce((sum, a) => sum + a.entries, 0),
  };
}

function newContract(runId: string, i: number): { type: 'create-contract'; command: Command } {
  const bizId = `new-${runId}-${i}`;
  const payload = { contract: { subject: `Scale ${bizId}`, signatories: [PERSON] } };
  return {
    type: 'create-contract',
    command: { commandId: `${bizId}-c`, bizId, payload } as Command,
  };
}

async function measureCommands(
  context: Context,
  topics: ReturnType<typeof topicNames>,
  count: number,
  bridge: NodeChild,
) {
  const writer = new CommandWriter(context.brokers, topics);
  const tally = await EventTally.start(context.brokers, topics, writer.sent);
  try {
    const runId = randomUUID().slice(0, 6);
    await writer.send(
      Array.from({ length: count }, (_, i) => newContract(runId, i)),
      'after-start',
    );
    await tally.waitFor('after-start', count, 60_000, () => bridge.running);
    const { latenciesMs, succeeded, failed } = tally.phase('after-start');
    const newCommands = { sent: count, succeeded, failed, notEnded: count - succeeded - failed };
    return { latency: summary(latenciesMs), newCommands };
  } finally {
    await tally.stop();
    await writer.close();
  }
}

/** A second bridge joins: commands are sent to every partition while half of them move. */
async function measureRebalance(
  context: Context,
  prefix: string,
  topics: ReturnType<typeof topicNames>,
) {
  const writer = new CommandWriter(context.brokers, topics);
  const tally = await EventTally.start(context.brokers, topics, writer.sent);
  const second = await startBridge(context, prefix);
  try {
    const runId = randomUUID().slice(0, 6);
    let sent = 0;
    const partitionOf = new Map<string, number>();
    const ready = second.bridge.waitForLine(BRIDGE.ready, 120_000).then(() => Date.now());
    let readyAt: number | undefined;
    void ready.then((at) => {
      readyAt = at;
    });
    // Twenty a second from the join until three seconds after the second bridge is ready.
    while (readyAt === undefined || Date.now() < readyAt + 3_000) {
      const planned = newContract(runId, sent++);
      partitionOf.set(planned.command.commandId, murmur2(planned.command.bizId));
      await writer.send([planned], `rebalance-${partitionOf.get(planned.command.commandId)}`);
      await delay(50);
    }
    const moved = new Set(second.acquired.map((a) => a.partition));
    const movedCommands = [...partitionOf.values()].filter((p) => moved.has(p)).length;
    const waits: number[] = [];
    for (const partition of moved) {
      const expected = [...partitionOf.values()].filter((p) => p === partition).length;
      await tally.waitFor(`rebalance-${partition}`, expected, 60_000, () => second.bridge.running);
      waits.push(...tally.phase(`rebalance-${partition}`).latenciesMs);
    }
    return { partitionsMoved: moved.size, movedCommands, waitMs: summary(waits) };
  } finally {
    second.sampler.stop();
    await second.bridge.stop();
    await tally.stop();
    await writer.close();
  }
}

const partitioner = Partitioners.DefaultPartitioner();
const metadata = Array.from(
  { length: PARTITIONS },
  (_, partitionId) => ({ partitionId, leader: 0 }) as PartitionMetadata,
);
function murmur2(key: string): number {
  return partitioner({ topic: 'any', partitionMetadata: metadata, message: { key, value: null } });
}

function summary(latencies: readonly number[]) {
  const { p50, p99, max } = percentiles(latencies);
  return { p50: round(p50, 0), p99: round(p99, 0), max: round(max, 0) };
}
