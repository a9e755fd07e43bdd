/**
 * `/status` on HTTP_PORT: one instance of the bridge as JSON, for the console's group page
 * (docs/console.md). Built when asked from what the instance keeps anyway (its metrics' current
 * values, its id and partitions, the bizIds held back), never on a command's path. The schema is
 * the one source of the shape: the health server answers with it, the console reads with it.
 */
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import type { BridgeStatus } from '../consumers/index.js';

const count = z.number().finite().min(0);
const name = z.string().max(200);

export const InstanceStatus = z.object({
  /** The instance id its consumer group membership carries (the group's member metadata). */
  instance: name,
  host: name,
  startedAt: z.string().max(40),
  ready: z.boolean(),
  /** Why it is not ready, one line each (what /readyz says); empty when it is. */
  notReady: z.array(z.string().max(500)).max(20),
  kafkaConnected: z.boolean(),
  /** The partition numbers it holds (the same on every command topic and the ledger). */
  partitions: z.array(z.number().int().min(0)).max(10_000),
  commands: z.object({ inFlight: count, inFlightLimit: count, pending: count }),
  /** Why fetching is paused, if it is: backpressure, breaker. */
  paused: z.array(name).max(10),
  breaker: z.object({
    state: z.enum(['closed', 'half-open', 'open']),
    /** The outage's cause while open or probing (auth, unreachable, not-the-platform, ...). */
    cause: name.nullable(),
  }),
  budget: z.object({
    /** SIGNING_RPS: the whole group's budget; 0 is unlimited. */
    groupRps: count,
    shareRps: count,
    rateInForceRps: count,
    /** Throttling answers (429) since the instance started. */
    throttled: count,
  }),
  classes: z.array(z.object({ name, running: count, backlog: count })).max(16),
  hotKeys: z.array(z.object({ type: name, longest: count, heldBack: count })).max(16),
  heldBack: z.array(z.object({ type: name, partition: count, bizId: name })).max(50),
  lag: z
    .array(z.object({ topic: name, partition: count, lag: count, unfetched: count }))
    .max(10_000),
  totals: z.object({ deadLetters: count, outcomesUnknown: count }),
});
export type InstanceStatus = z.infer<typeof InstanceStatus>;

export interface StatusSource {
  readonly registry: Registry;
  readonly bridge: () => BridgeStatus;
  readonly notReadyBecause: () => readonly string[];
  readonly budgetRps: number;
  readonly startedAt: Date;
}

const CIRCUIT = ['closed', 'half-open', 'open'] as const;
const PREFIX = 'signing_bridge_';

type Sample = { value: number; labels: Record<string, string | number> };

export async function instanceStatus(source: StatusSource): Promise<InstanceStatus> {
  const { registry } = source;
  const samples = async (metric: string): Promise<Sample[]> => {
    const found = registry.getSingleMetric(`${PREFIX}${metric}`);
    return found ? ((await found.get()).values as Sample[]) : [];
  };
  const one = async (metric: string) => (await samples(metric))[0]?.value ?? 0;
  const sum = async (metric: string) =>
    (await samples(metric)).reduce((total, sample) => total + sample.value, 0);
  const labelled = async (metric: string, label: string) =>
    new Map((await samples(metric)).map((s) => [String(s.labels[label]), s.value]));
  const bridge = source.bridge();
  const [backlog, running] = await Promise.all([
    labelled('class_backlog', 'class'),
    labelled('class_running', 'class'),
  ]);
  const [longest, heldBack] = await Promise.all([
    labelled('key_queue_longest', 'type'),
    labelled('keys_held_back', 'type'),
  ]);
  const unfetched = new Map(
    (await samples('consumer_lag_unfetched')).map((s) => [laneOf(s.labels), s.value]),
  );
  return {
    instance: bridge.instance,
    host: hostname(),
    startedAt: source.startedAt.toISOString(),
    ready: (await one('ready')) === 1,
    notReady: source.notReadyBecause().slice(0, 20),
    kafkaConnected: (await one('kafka_connected')) === 1,
    partitions: [...bridge.partitions].sort((a, b) => a - b),
    commands: {
      inFlight: await one('in_flight'),
      inFlightLimit: await one('in_flight_limit'),
      pending: await one('pending'),
    },
    paused: [...(await labelled('consumption_paused', 'reason'))]
      .filter(([, value]) => value === 1)
      .map(([reason]) => reason),
    breaker: {
      state: CIRCUIT[await one('circuit_state')] ?? 'closed',
      cause:
        [...(await labelled('platform_outage', 'cause'))].find(([, v]) => v === 1)?.[0] ?? null,
    },
    budget: {
      groupRps: source.budgetRps,
      shareRps: await one('budget_share_rps'),
      rateInForceRps: await one('rate_limit_rps'),
      throttled: await sum('platform_throttled_total'),
    },
    classes: [...backlog].map(([name, value]) => ({
      name,
      backlog: value,
      running: running.get(name) ?? 0,
    })),
    hotKeys: [...longest].map(([type, value]) => ({
      type,
      longest: value,
      heldBack: heldBack.get(type) ?? 0,
    })),
    heldBack: [...bridge.heldBack],
    lag: (await samples('consumer_lag')).map((s) => ({
      topic: String(s.labels.topic),
      partition: Number(s.labels.partition),
      lag: s.value,
      unfetched: unfetched.get(laneOf(s.labels)) ?? 0,
    })),
    totals: {
      deadLetters: await sum('dead_letters_total'),
      outcomesUnknown: await sum('outcomes_unknown_total'),
    },
  };
}

function laneOf(labels: Sample['labels']): string {
  return `${labels.topic}/${labels.partition}`;
}
