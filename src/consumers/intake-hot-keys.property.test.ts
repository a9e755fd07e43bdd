/**
 * Intake and the KeyScheduler together over random key distributions, with a partition that
 * behaves as Kafka's fetch does (a position that batches move on and seeks set; paused while its
 * class is held): random fetches and random ends of running commands. Some keys belong to another
 * partition: their records are forwarded, scheduled and bounded as one key of the partition.
 * Checked: each record runs once, each key's in offset order, one at a time; a scheduling key
 * never holds more than its bound; no key waits on another's beyond the bound: a key whose record
 * the fetch has passed without taking it holds at least half its bound itself, and the class
 * pauses only once LANES_PER_SHARE keys hold commands; the commit never passes a command not run
 * to its end; in the end everything ran and the commit is past the log (docs/design.md, "Hot
 * keys").
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heldLease } from '../../test/support/held-lease.js';
import { inboundRecord } from '../../test/support/inbound-record.js';
import { keyPartition } from '../kafka/index.js';
import { PartitionTask } from '../partitions/index.js';
import { topicNames } from '../schemas/messages/index.js';
import { forwardingKey } from './forwarding.js';
import { Intake } from './intake.js';
import type { Job } from './job.js';
import { KeyScheduler } from './key-scheduler.js';
import { DEFAULT_RECORD_LIMITS } from './record-limits.js';

const topic = topicNames('p.').commands.remind;
const MAX_PENDING = 24;
/** An eighth of the one class's share (class-shares.ts). */
const BOUND = 3;
/** The keys it takes to fill the class, each at its bound. */
const LANES_PER_SHARE = MAX_PENDING / BOUND;
/** Keys of partition 1 are forwarded from partition 0, the one fetched. */
const PARTITIONS = 2;
/** A hot key of partition 0, and one of partition 1 (its records forwarded). */
const HOT_KEYS = ['hot', findKey((key) => keyPartition(Buffer.from(key), PARTITIONS) === 1)];

function findKey(wanted: (key: string) => boolean): string {
  for (let i = 0; ; i++) if (wanted(`hot${i}`)) return `hot${i}`;
}

/** What the key's records are scheduled and bounded under on partition 0. */
function schedulingKeyOf(key: string): string {
  const home = keyPartition(Buffer.from(key), PARTITIONS) === 0;
  return home ? key : forwardingKey(recordAt(key, 0));
}

const recordAt = (key: string, offset: number) =>
  inboundRecord({ topic, offset, key, value: '{}' });

async function settle(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

async function simulate(log: string[], steps: Array<{ fetch: boolean; pick: number }>) {
  const task = new PartitionTask(0, { phase: 'active' }, heldLease);
  let position = 0;
  let seekTo: number | undefined;
  let paused = false;
  const running: Array<{ job: Job; end: () => void }> = [];
  const runsOf = new Map<string, number[]>();
  const runningKeys = new Set<string>();
  let committed = 0;
  const ended = new Set<number>();
  const taken = new Set<number>();
  // Per scheduling key, its commands taken and not ended.
  const inHand = new Map<string, number>();
  const countInHand = (key: string, by: 1 | -1) => inHand.set(key, (inHand.get(key) ?? 0) + by);

  const scheduler = new KeyScheduler<Job>({
    worker: (job) =>
      new Promise<undefined>((resolve) => {
        expect(runningKeys.has(job.key), `${job.key} runs twice at once`).toBe(false);
        runningKeys.add(job.key);
        const runs = runsOf.get(job.key) ?? [];
        runs.push(Number(job.record.offset));
        runsOf.set(job.key, runs);
        running.push({
          job,
          end: () => {
            runningKeys.delete(job.key);
            // As the runner does once the command's end is written.
            job.task.finish(topic, job.record.offset);
            countInHand(schedulingKeyOf(job.key), -1);
            ended.add(Number(job.record.offset));
            resolve(undefined);
          },
        });
      }),
    lane: (job) => job.type,
    classOf: () => 'bulk',
    weights: new Map([['bulk', 1]]),
    maxInFlight: 4,
    maxPending: MAX_PENDING,
    onError: (error) => {
      throw error;
    },
    onLaneRelieved: (key, lane) => intake.laneRelieved(key, lane as 'remind'),
  });
  const push = scheduler.push.bind(scheduler);
  scheduler.push = (key, job) => {
    expect(key, `the scheduling key of ${job.key}`).toBe(schedulingKeyOf(job.key));
    taken.add(Number(job.record.offset));
    countInHand(key, 1);
    push(key, job);
  };
  const seek = (offset: string) => {
    seekTo = Number(offset);
    position = seekTo;
  };
  const intake: Intake = new Intake({
    scheduler,
    partitions: {
      onLedgerBatch: () => {},
      logWentBack: () => {
        throw new Error('the log never goes back here');
      },
      holdTopics: (topics) => {
        if (topics.has(topic) && !paused) {
          const keys = [...inHand.values()].filter((count) => count > 0).length;
          expect(keys, 'keys holding commands as the class pauses').toBeGreaterThanOrEqual(
            LANES_PER_SHARE,
          );
        }
        paused = topics.has(topic);
      },
      task: () => task,
      rewind: (_topic, key) => {
        const offset = task.rewindFor(topic, key);
        if (offset === undefined) return [];
        seek(offset);
        return [0];
      },
      seek: (_topic, _partition, offset) => seek(offset),
      heldKeys: () => new Map(),
    },
    typeOf: new Map([[topic, 'remind']]),
    classOf: () => 'bulk',
    limits: DEFAULT_RECORD_LIMITS,
    commandPartitions: PARTITIONS,
    observer: {},
  });

  const fetch = (size: number) => {
    if (paused || position >= log.length) return;
    const records = log
      .slice(position, position + size)
      .map((key, i) => recordAt(key, position + i));
    seekTo = undefined;
    let resolved: number | undefined;
    intake.onBatch({
      topic,
      partition: 0,
      records,
      resolve: (offset) => {
        resolved = Number(offset);
      },
    });
    // A seek made meanwhile wins over the batch's resolved offset, as in kafkajs.
    if (seekTo === undefined && resolved !== undefined) position = resolved + 1;
  };
  const commit = () => {
    for (const { offset } of task.committable()) {
      const value = Number(offset);
      for (let i = committed; i < value; i++) {
        expect(ended.has(i), `the commit ${value} passes ${i}, not ended`).toBe(true);
      }
      task.committed(topic, offset);
      committed = value;
    }
  };
  const check = () => {
    for (const [key, most] of scheduler.longestLanes()) {
      expect(most, `lane ${key}`).toBeLessThanOrEqual(BOUND);
    }
    // A record the fetch passed and left waits for its own key's commands, not another's.
    for (let offset = 0; offset < Math.min(position, log.length); offset++) {
      if (taken.has(offset)) continue;
      const key = schedulingKeyOf(log[offset] as string);
      expect(inHand.get(key) ?? 0, `${key} passed over at ${offset}`).toBeGreaterThanOrEqual(
        Math.ceil(BOUND / 2),
      );
    }
  };
  const endOne = async (pick: number) => {
    const [run] = running.splice(pick % running.length, 1);
    run?.end();
    await settle();
  };

  for (const { fetch: doFetch, pick } of steps) {
    if (doFetch) fetch(1 + (pick % 7));
    else if (running.length > 0) await endOne(pick);
    check();
    commit();
  }
  for (let guard = 0; guard < 20_000; guard++) {
    if (running.length > 0) await endOne(guard);
    else if (!paused && position < log.length) fetch(5);
    else if (scheduler.pending === 0) break;
    else await settle();
    check();
    commit();
  }
  return { runsOf, committed, ended };
}

const keyLog = fc
  .tuple(
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 0, max: 100 }),
    fc.constantFrom(...HOT_KEYS),
  )
  .chain(([others, hotPercent, hot]) =>
    fc.array(
      fc
        .integer({ min: 0, max: 99 })
        .map((roll) => (roll < hotPercent ? hot : `k${roll % others}`)),
      { minLength: 1, maxLength: 150, size: 'max' },
    ),
  );

/** Logs of up to 150 records over 300 steps, 60 times: seconds, more on a busy machine. */
const TIMEOUT_MS = 60_000;

describe('Intake with the KeyScheduler, over random key distributions', () => {
  it(
    'when random keys, some forwarded, are fetched and run, then each record runs once, per key in offset order and one at a time, within the bound, no key waiting on another beyond it, committing nothing not ended',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          keyLog,
          fc.array(fc.record({ fetch: fc.boolean(), pick: fc.nat() }), {
            maxLength: 300,
            size: 'max',
          }),
          async (log, steps) => {
            const { runsOf, committed, ended } = await simulate(log, steps);
            expect(ended.size).toBe(log.length);
            expect(committed).toBe(log.length);
            for (const [key, runs] of runsOf) {
              const expected = log.flatMap((k, offset) => (k === key ? [offset] : []));
              expect(runs, `runs of ${key}`).toEqual(expected);
            }
          },
        ),
        { numRuns: 60 },
      );
    },
    TIMEOUT_MS,
  );
});
