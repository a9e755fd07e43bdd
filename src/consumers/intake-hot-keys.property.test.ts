/**
 * Intake and the KeyScheduler together over random key distributions, with a partition that
 * behaves as Kafka's fetch does (a position that batches move on and seeks set; paused while its
 * class is held): random fetches and random ends of running commands. Checked: each record runs
 * once, each key's in offset order, one at a time; a key never holds more than its bound; the
 * commit never passes a command not run to its end; in the end everything ran and the commit is
 * past the log (docs/design.md, "Hot keys").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRecord } from '../kafka/index.js';
import { PartitionTask } from '../partitions/index.js';
import { topicNames } from '../schemas/messages/index.js';
import { Intake } from './intake.js';
import type { Job } from './job.js';
import { KeyScheduler } from './key-scheduler.js';
import { DEFAULT_RECORD_LIMITS } from './record-limits.js';

const topic = topicNames('p.').commands.remind;
const MAX_PENDING = 24;
/** An eighth of the one class's share (class-shares.ts). */
const BOUND = 3;

function recordAt(key: string, offset: number): InboundRecord {
  return {
    topic,
    partition: 0,
    offset: String(offset),
    key: Buffer.from(key),
    value: Buffer.from('{}'),
    headers: {},
    timestamp: '0',
  };
}

async function settle(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

async function simulate(log: string[], steps: Array<{ fetch: boolean; pick: number }>) {
  const task = new PartitionTask(0, { phase: 'active' });
  let position = 0;
  let seekTo: number | undefined;
  let paused = false;
  const running: Array<{ job: Job; end: () => void }> = [];
  const runsOf = new Map<string, number[]>();
  const runningKeys = new Set<string>();
  let committed = 0;
  const ended = new Set<number>();

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
  const seek = (offset: string) => {
    seekTo = Number(offset);
    position = seekTo;
  };
  const intake: Intake = new Intake({
    scheduler,
    partitions: {
      onLedgerBatch: () => {},
      holdTopics: (topics) => {
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
    // Every key belongs to partition 0: nothing is forwarded.
    commandPartitions: 1,
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
  .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 100 }))
  .chain(([others, hotPercent]) =>
    fc.array(
      fc
        .integer({ min: 0, max: 99 })
        .map((roll) => (roll < hotPercent ? 'hot' : `k${roll % others}`)),
      { minLength: 1, maxLength: 150 },
    ),
  );

describe('Intake with the KeyScheduler, over random key distributions', () => {
  it('runs each record once, per key in offset order and one at a time, within the bound, committing nothing not ended', async () => {
    await fc.assert(
      fc.asyncProperty(
        keyLog,
        fc.array(fc.record({ fetch: fc.boolean(), pick: fc.nat() }), { maxLength: 300 }),
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
  });
});
