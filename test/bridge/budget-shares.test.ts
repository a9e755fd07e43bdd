/**
 * SIGNING_RPS is the whole group's budget: bridge processes join, leave and crash, and each
 * instance's share follows the partitions it holds, with the shares in force never adding up to
 * more than the budget (read from every process's "platform budget share changed" log lines).
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { topicNames } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { BridgeProcess, createTopics, uniquePrefix } from '../support/bridge-harness.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const BUDGET = 12;
const PARTITIONS = 6;
const SHARE_CHANGED = 'platform budget share changed';
let sim: RunningSimulator;
const prefix = uniquePrefix();
const groupId = uniqueId('budget');
const processes: BridgeProcess[] = [];
/** When a process was killed: its share ends then (it logs nothing more). */
const killedAt = new Map<BridgeProcess, number>();

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topicNames(prefix), PARTITIONS);
});

afterAll(async () => {
  for (const bridge of processes) bridge.kill('SIGKILL');
  await sim?.stop();
});

async function start(): Promise<BridgeProcess> {
  const bridge = await BridgeProcess.start({
    brokers,
    prefix,
    groupId,
    simulatorUrl: sim.url,
    env: { SIGNING_RPS: String(BUDGET) },
    keep: [SHARE_CHANGED],
  });
  processes.push(bridge);
  return bridge;
}

/** A process's share in force now, by its last word (0 once killed). */
function shareOf(bridge: BridgeProcess): number {
  if (killedAt.has(bridge)) return 0;
  return Number(bridge.kept.at(-1)?.shareRps ?? 0);
}

async function sharesBecome(expected: Map<BridgeProcess, number>): Promise<void> {
  const wanted = [...expected.values()];
  await waitUntil(() => [...expected.keys()].map(shareOf), {
    // toBeCloseTo's precision 6: within 0.5e-6.
    until: (shares) => shares.every((share, i) => Math.abs(share - (wanted[i] ?? 0)) < 0.5e-6),
    what: `the processes' shares to become ${wanted.join(', ')}`,
    timeoutMs: 60_000,
    intervalMs: 100,
  });
}

/**
 * The most the shares in force ever added up to, over every process's changes in time order.
 * At the same millisecond a rise is counted before a fall: the check gives no benefit of doubt.
 */
function largestSum(): number {
  const changes = processes.flatMap((bridge) => {
    const shares = bridge.kept.map((line) => ({
      time: Number(line.time),
      share: Number(line.shareRps),
    }));
    const killed = killedAt.get(bridge);
    if (killed !== undefined) shares.push({ time: killed, share: 0 });
    return shares.map(({ time, share }, i) => ({
      time,
      delta: share - (shares[i - 1]?.share ?? 0),
    }));
  });
  changes.sort((x, y) => x.time - y.time || y.delta - x.delta);
  let sum = 0;
  let largest = 0;
  for (const { delta } of changes) {
    sum += delta;
    largest = Math.max(largest, sum);
  }
  return largest;
}

it('when members join, leave and crash, then each share follows its partitions, the survivors take up the whole budget, and the shares never add up to more', async () => {
  const a = await start();
  await sharesBecome(new Map([[a, BUDGET]]));

  const b = await start();
  await sharesBecome(
    new Map([
      [a, BUDGET / 2],
      [b, BUDGET / 2],
    ]),
  );

  const c = await start();
  await sharesBecome(
    new Map([
      [a, BUDGET / 3],
      [b, BUDGET / 3],
      [c, BUDGET / 3],
    ]),
  );

  b.kill('SIGTERM');
  expect(await b.exited).toBe(0);
  expect(shareOf(b)).toBe(0);
  await sharesBecome(
    new Map([
      [a, BUDGET / 2],
      [c, BUDGET / 2],
    ]),
  );

  killedAt.set(c, Date.now());
  c.kill('SIGKILL');
  await sharesBecome(new Map([[a, BUDGET]]));

  expect(largestSum()).toBeLessThanOrEqual(BUDGET + 1e-9);
  // Each change was logged with what it is a share of.
  for (const bridge of processes) {
    for (const line of bridge.kept)
      expect(line).toMatchObject({ budgetRps: BUDGET, of: PARTITIONS });
  }
}, 240_000);
