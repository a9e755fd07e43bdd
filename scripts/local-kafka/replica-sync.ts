// Whether every partition of a cluster has a leader and its full replica set in sync, as each
// running node's own metadata says (metadata-request.ts), and waiting until it does. Every node
// is asked because each answers from its own copy of the metadata, which may trail the
// controller's for a moment: a wait ends only once none trails.
import { setTimeout as delay } from 'node:timers/promises';
import { fetchMetadata, type NodeMetadata, type PartitionReplicas } from './metadata-request.js';

export type { PartitionReplicas } from './metadata-request.js';

export interface ReplicaReport {
  /** Every partition of every topic, the internal ones (`__consumer_offsets`, …) included. */
  partitions: PartitionReplicas[];
  /** The partitions with a replica missing from their ISR, or without a leader. */
  underReplicated: PartitionReplicas[];
}

export interface WaitOptions {
  /** 60 s by default. */
  timeoutMs?: number;
  /** Topics that must be listed too (a topic just created may not be yet). */
  topics?: readonly string[];
  /** Called with a line saying what is awaited, at the start and whenever that changes. */
  onProgress?: (line: string) => void;
}

/** What keeps one node's metadata from the awaited state, or undefined once nothing does. */
type Check = (metadata: NodeMetadata) => string | undefined;

type Answer = { broker: string; metadata: NodeMetadata } | { broker: string; error: Error };

const POLL_INTERVAL_MS = 500;

function isInSync({ leader, replicas, isr }: PartitionReplicas): boolean {
  return leader >= 0 && replicas.every((replica) => isr.includes(replica));
}

function report({ partitions }: NodeMetadata): ReplicaReport {
  return { partitions, underReplicated: partitions.filter((p) => !isInSync(p)) };
}

/** What the first of `brokers` that answers says about every partition. */
export async function readReplicas(brokers: readonly string[]): Promise<ReplicaReport> {
  const errors: string[] = [];
  for (const broker of brokers) {
    const answer = await ask(broker);
    if ('metadata' in answer) return report(answer.metadata);
    errors.push(answer.error.message);
  }
  throw new Error(`no broker answered: ${errors.join('; ')}`);
}

/**
 * Resolves once every partition of every topic has a leader and all its replicas in its ISR;
 * rejects after `timeoutMs` naming the partitions still short.
 */
export function waitInSync(
  brokers: readonly string[],
  options: WaitOptions = {},
): Promise<ReplicaReport> {
  return waitFor(brokers, 'every partition in sync', partitionsWhere(isInSync, options), options);
}

/** Resolves once every partition's leader is one of `nodeIds` (in sync or not). */
export function waitForLeaders(
  brokers: readonly string[],
  nodeIds: readonly number[],
  options: WaitOptions = {},
): Promise<ReplicaReport> {
  const what = `every partition led by node ${nodeIds.join(', ')}`;
  const ledThere = ({ leader }: PartitionReplicas) => nodeIds.includes(leader);
  return waitFor(brokers, what, partitionsWhere(ledThere, options), options);
}

/**
 * Resolves once every running one of `brokers` lists `nodeId` as a broker (`listed`), or no
 * longer does: registered and serving, or fenced, in every node's metadata.
 */
export function waitForListing(
  brokers: readonly string[],
  nodeId: number,
  listed: boolean,
  options: WaitOptions = {},
): Promise<ReplicaReport> {
  const what = `every running node ${listed ? 'listing' : 'no longer listing'} node ${nodeId}`;
  const check: Check = (metadata) =>
    metadata.nodeIds.includes(nodeId) === listed ? undefined : 'does not yet';
  return waitFor(brokers, what, check, options);
}

/** The named topics listed, and `holds` true of every partition. */
function partitionsWhere(
  holds: (partition: PartitionReplicas) => boolean,
  { topics = [] }: WaitOptions,
): Check {
  return ({ partitions }) => {
    const unlisted = topics.filter((topic) => !partitions.some((p) => p.topic === topic));
    if (unlisted.length > 0) return `does not list ${unlisted.join(', ')} yet`;
    const short = partitions.filter((p) => !holds(p));
    return short.length > 0 ? `says ${shortOf(short, partitions.length)}` : undefined;
  };
}

async function ask(broker: string): Promise<Answer> {
  try {
    return { broker, metadata: await fetchMetadata(broker) };
  } catch (error) {
    return { broker, error: error as Error };
  }
}

/** Polls every one of `brokers` until `check` passes for each that runs. */
async function waitFor(
  brokers: readonly string[],
  what: string,
  check: Check,
  { timeoutMs = 60_000, onProgress }: WaitOptions,
): Promise<ReplicaReport> {
  const started = performance.now();
  let lastLine = '';
  for (;;) {
    const answers = await Promise.all(brokers.map(ask));
    const why = shortfall(answers, check);
    const first = answers.find((answer) => 'metadata' in answer);
    if (why === undefined && first && 'metadata' in first) return report(first.metadata);
    const line = `waiting for ${what}: ${why}`;
    if (performance.now() - started >= timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms ${line}`);
    if (line !== lastLine) onProgress?.(line);
    lastLine = line;
    await delay(POLL_INTERVAL_MS);
  }
}

/**
 * The first answer's shortfall, or undefined once there is none. A broker that refuses the
 * connection is down and has no say; one that runs and does not answer does.
 */
function shortfall(answers: Answer[], check: Check): string | undefined {
  const running = answers.filter((a) => !('error' in a && refused(a.error)));
  if (running.length === 0) return `no broker runs (${answers.map((a) => a.broker).join(', ')})`;
  for (const answer of running) {
    if ('error' in answer) return answer.error.message;
    const why = check(answer.metadata);
    if (why !== undefined) return `${answer.broker} ${why}`;
  }
  return undefined;
}

function refused(error: Error): boolean {
  return (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED';
}

/** "2 of 9 partitions: orders/0 (leader 1, isr 1,3 of 1,2,3), …", the first three named. */
function shortOf(short: PartitionReplicas[], total: number): string {
  const named = short.slice(0, 3).map(describePartition);
  const more = short.length > 3 ? `, and ${short.length - 3} more` : '';
  return `${short.length} of ${total} partitions: ${named.join(', ')}${more}`;
}

function describePartition(p: PartitionReplicas): string {
  return `${p.topic}/${p.partition} (leader ${p.leader}, isr ${p.isr.join(',')} of ${p.replicas.join(',')})`;
}
