/**
 * Preloaded into a Node subject by `npm run bench -- --gc-tally` (node --import): counts the
 * subject's garbage collections by type, their pauses, and the bytes its JavaScript heap
 * allocated (used heap before each collection minus used heap after the one before; buffers'
 * backing stores, outside the heap, are not counted), with V8's GCProfiler. On SIGUSR2 it writes
 * the totals since it started as one line on stderr, `gc-tally {json}`: the benchmark asks at both
 * ends of the backlog and takes the difference. Plain JavaScript: it runs beside compiled code.
 *
 * With BENCH_HEAP_SAMPLE_DIR set (--heap-sample), V8's sampling heap profiler also runs from the
 * first SIGUSR2 to the second, keeping the objects collected since (every allocation, sampled
 * every 64 KB on average), and writes `Heap.<pid>.heapprofile` there before it answers the second.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { GCProfiler, getHeapStatistics } from 'node:v8';

const ROLL_MS = 5_000;
const totals = { collections: {}, pauseMs: 0, allocatedBytes: 0 };
let lastUsedAfter = getHeapStatistics().used_heap_size;
let profiler = new GCProfiler();
profiler.start();

/** Folds what the profiler holds into the totals and starts it again (it keeps every event). */
function roll() {
  const { statistics } = profiler.stop();
  profiler = new GCProfiler();
  profiler.start();
  for (const gc of statistics) {
    totals.collections[gc.gcType] = (totals.collections[gc.gcType] ?? 0) + 1;
    totals.pauseMs += gc.cost / 1000;
    totals.allocatedBytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - lastUsedAfter);
    lastUsedAfter = gc.afterGC.heapStatistics.usedHeapSize;
  }
}

const sampleDir = process.env.BENCH_HEAP_SAMPLE_DIR;
let marks = 0;
let session;

/** Starts the heap sampling at the first mark, stops it and writes it at the second. */
function sample(then) {
  marks += 1;
  if (!sampleDir || marks > 2) return then();
  if (marks === 1) {
    session = new Session();
    session.connect();
    const sampling = {
      samplingInterval: 65_536,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    };
    return session.post('HeapProfiler.startSampling', sampling, () => then());
  }
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (!error) {
      const file = join(sampleDir, `Heap.${process.pid}.heapprofile`);
      writeFileSync(file, JSON.stringify(result.profile));
    }
    session.disconnect();
    then();
  });
}

setInterval(roll, ROLL_MS).unref();
// The totals are taken first: writing the heap profile allocates too.
process.on('SIGUSR2', () => {
  const now = totalsNow();
  sample(() => process.stderr.write(`gc-tally ${JSON.stringify(now)}\n`));
});

function totalsNow() {
  roll();
  // What was allocated since the last collection counts too.
  const sinceLast = Math.max(0, getHeapStatistics().used_heap_size - lastUsedAfter);
  return {
    collections: { ...totals.collections },
    pauseMs: totals.pauseMs,
    allocatedBytes: totals.allocatedBytes + sinceLast,
    at: Date.now(),
  };
}
