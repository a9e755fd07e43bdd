// A production-shaped local Kafka cluster: N KRaft nodes (3 to 5), each broker and controller
// in one JVM, replication 3 and min ISR 2 (broker-files.ts), each node stopped, killed or
// started again on its own while the others serve. docs/local-kafka.md "A cluster" says why.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import {
  type BrokerFiles,
  formatStorage,
  randomClusterId,
  writeBrokerFiles,
} from './broker-files.js';
import { launchBroker, waitUntilReady } from './broker-launch.js';
import { ensureKafkaInstalled } from './install.js';
import { HOST, pickClusterPorts } from './ports.js';
import { DEFAULT_KAFKA_VERSION, releaseFamily } from './releases.js';
import {
  type ReplicaReport,
  readReplicas,
  type WaitOptions,
  waitForLeaders,
  waitForListing,
  waitInSync,
} from './replica-sync.js';
import { exited, killNow, type Reaper, startReaper, terminate } from './supervision.js';

export type { PartitionReplicas, ReplicaReport, WaitOptions } from './replica-sync.js';

export const MIN_NODES = 3;
export const MAX_NODES = 5;
const DEFAULT_HEAP_MB = 256;
// Three JVMs start on two cores: C1 alone and the serial collector take about a third less CPU
// to ready (docs/local-kafka.md "A cluster"); a test's broker never runs long enough for C2's
// faster code to repay its compiling.
const NODE_JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

export interface LocalClusterOptions {
  /** 3 (the default) to 5 nodes: replication 3 needs three; more do not fit a 2-core machine. */
  nodes?: number;
  version?: string;
  /** Kept and reused across starts when given (a node-<id> folder per node); otherwise a temp dir. */
  dataDir?: string;
  /** Each node's JVM heap, 256 MB by default. */
  heapMb?: number;
}

export interface LocalKafkaCluster {
  /** Every node's PLAINTEXT listener, node 1 first: the bootstrap list. */
  readonly brokers: readonly string[];
  /** 1 to N; node `id`'s listener is `brokers[id - 1]`. */
  readonly nodeIds: readonly number[];
  readonly version: string;
  isRunning(nodeId: number): boolean;
  /**
   * Starts a stopped node; resolves once it serves and every running node lists it (at once if
   * it runs).
   */
  start(nodeId: number): Promise<void>;
  /**
   * SIGTERM: a controlled shutdown (leaders moved off first); resolves once the JVM exited and
   * no running node lists it.
   */
  stop(nodeId: number): Promise<void>;
  /**
   * SIGKILL: no shutdown at all; resolves once the JVM is gone. The others list it, and it leads
   * its partitions, until the controller fences it (`broker.session.timeout.ms`, 6 s).
   */
  kill(nodeId: number): Promise<void>;
  /** stop, then start. */
  restart(nodeId: number): Promise<void>;
  /** Every partition's leader, replicas and ISR, as a running node answers now. */
  replicas(): Promise<ReplicaReport>;
  /** Until every partition has a leader and all its replicas in its ISR. */
  waitInSync(options?: WaitOptions): Promise<ReplicaReport>;
  /** Until every partition is led by a running node (in sync or not). */
  waitForLeaders(options?: WaitOptions): Promise<ReplicaReport>;
  /**
   * Ends every node and deletes the data; with a `dataDir`, stops every node cleanly and keeps
   * it. Idempotent.
   */
  shutdown(): Promise<void>;
}

interface ClusterNode {
  id: number;
  broker: string;
  files: BrokerFiles;
  child?: ChildProcess;
  /** The node's operations run one after another: a stop waits for a start under way. */
  queue: Promise<unknown>;
}

/** Starts every node at once and resolves when each is registered and serving. */
export async function startLocalCluster(
  options: LocalClusterOptions = {},
): Promise<LocalKafkaCluster> {
  const count = options.nodes ?? MIN_NODES;
  if (!Number.isInteger(count) || count < MIN_NODES || count > MAX_NODES)
    throw new Error(`nodes must be an integer from ${MIN_NODES} to ${MAX_NODES}, got ${count}`);
  const version = options.version ?? DEFAULT_KAFKA_VERSION;
  const family = releaseFamily(version);
  const libs = await ensureKafkaInstalled(version);
  const ports = await pickClusterPorts(count);
  const root = options.dataDir
    ? resolvePath(options.dataDir)
    : await mkdtemp(join(tmpdir(), 'signing-bridge-kafka-cluster-'));
  const tempDir = options.dataDir === undefined ? root : undefined;
  const clusterId = randomClusterId();
  const nodes = await Promise.all(
    ports.map(async ({ port }, index): Promise<ClusterNode> => {
      const id = index + 1;
      const place = { nodeId: id, nodes: ports };
      const files = await writeBrokerFiles(family, join(root, `node-${id}`), place);
      return { id, broker: `${HOST}:${port}`, files, queue: Promise.resolve() };
    }),
  );
  const cluster = new Cluster(libs, version, nodes, options.heapMb ?? DEFAULT_HEAP_MB, tempDir);
  try {
    // A reused dataDir keeps each node's first format (and so its cluster id).
    await Promise.all(nodes.map((node) => formatStorage(libs, node.files, [], clusterId)));
    // All at once: a node serves only once a majority of the controllers runs.
    await Promise.all(cluster.nodeIds.map((id) => cluster.start(id)));
  } catch (error) {
    await cluster.shutdown();
    throw error;
  }
  return cluster;
}

class Cluster implements LocalKafkaCluster {
  readonly brokers: readonly string[];
  readonly nodeIds: readonly number[];
  readonly #reaper: Reaper;
  #shutdown: Promise<void> | undefined;

  constructor(
    private readonly libs: string,
    readonly version: string,
    private readonly nodes: readonly ClusterNode[],
    private readonly heapMb: number,
    private readonly tempDir: string | undefined,
  ) {
    this.brokers = nodes.map((node) => node.broker);
    this.nodeIds = nodes.map((node) => node.id);
    this.#reaper = startReaper(tempDir);
  }

  isRunning(nodeId: number): boolean {
    const { child } = this.#node(nodeId);
    return child !== undefined && !exited(child);
  }

  start(nodeId: number): Promise<void> {
    return this.#serially(nodeId, async (node) => {
      if (this.#shutdown) throw new Error(`node ${nodeId}: the cluster was shut down`);
      if (this.isRunning(nodeId)) return;
      const child = await launchBroker(this.libs, node.files, this.heapMb, NODE_JVM_FLAGS);
      node.child = child;
      this.#reaper.watch(child);
      try {
        await waitUntilReady({ broker: node.broker, nodeId }, child, node.files);
        // Each node answers from its own copy of the metadata: until all list the new node, a
        // client may still be told it is not there.
        await waitForListing(this.#runningBrokers(), nodeId, true);
      } catch (error) {
        await killNow(child);
        throw new Error(`node ${nodeId} did not start: ${(error as Error).message}`, {
          cause: error,
        });
      }
    });
  }

  async stop(nodeId: number): Promise<void> {
    await this.#whenRunning(nodeId, terminate);
    // Fenced in every node's copy of the metadata, so the leaders and ISRs it left are there too.
    if (this.nodeIds.some((id) => this.isRunning(id)))
      await waitForListing(this.#runningBrokers(), nodeId, false);
  }

  kill(nodeId: number): Promise<void> {
    return this.#whenRunning(nodeId, killNow);
  }

  async restart(nodeId: number): Promise<void> {
    await this.stop(nodeId);
    await this.start(nodeId);
  }

  replicas(): Promise<ReplicaReport> {
    return readReplicas(this.#runningBrokers());
  }

  waitInSync(options?: WaitOptions): Promise<ReplicaReport> {
    return waitInSync(this.#runningBrokers(), options);
  }

  waitForLeaders(options?: WaitOptions): Promise<ReplicaReport> {
    const running = this.nodeIds.filter((id) => this.isRunning(id));
    return waitForLeaders(this.#runningBrokers(), running, options);
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      // Data about to be deleted gains nothing from a clean stop, and the last controller to
      // stop waits 5 s for voters already gone. Kept data is stopped cleanly, all nodes at
      // once: each node's broker stops before its controller, so the quorum stays while the
      // brokers' controlled shutdowns are approved.
      const end = this.tempDir ? killNow : terminate;
      await Promise.all(this.nodeIds.map((id) => this.#whenRunning(id, end)));
      this.#reaper.standDown();
      if (this.tempDir) await rm(this.tempDir, { recursive: true, force: true });
    })();
    return this.#shutdown;
  }

  #node(nodeId: number): ClusterNode {
    const node = this.nodes[nodeId - 1];
    if (!node || node.id !== nodeId)
      throw new Error(`no node ${nodeId}: the nodes are ${this.nodeIds.join(', ')}`);
    return node;
  }

  #runningBrokers(): string[] {
    const running = this.nodes.filter((node) => this.isRunning(node.id));
    // None running: ask them all, for an error that names them.
    return (running.length > 0 ? running : this.nodes).map((node) => node.broker);
  }

  #whenRunning(nodeId: number, end: (child: ChildProcess) => Promise<void>): Promise<void> {
    return this.#serially(nodeId, async (node) => {
      if (node.child && !exited(node.child)) await end(node.child);
    });
  }

  #serially(nodeId: number, operation: (node: ClusterNode) => Promise<void>): Promise<void> {
    const node = this.#node(nodeId);
    const next = node.queue.then(() => operation(node));
    node.queue = next.catch(() => undefined);
    return next;
  }
}
