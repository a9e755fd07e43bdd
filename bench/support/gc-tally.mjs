/**
 * Preloaded into a Node subject by `npm run bench -- --gc-tally` (node --import): counts the
 * subject's garbage collections by type, their pauses, and the bytes its JavaScript heap
 * allocated (used heap before each collection minus used heap after the one before; buffers'
 * backing stores, outside the heap, are not counted), with V8's GCProfiler. On SIGUSR2 it writes
 * the totals since it started as one line on stderr, `gc-tally {json}`: the benchmark asks at both
 * ends of the backlog and takes the difference. Plain JavaScript: it runs beside compiled code.
 */
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

setInterval(roll, ROLL_MS).unref();
process.on('SIGUSR2', () => {
  roll();
  // What was allocated since the last collection counts too.
  const sinceLast = Math.max(0, getHeapStatistics().used_heap_size - lastUsedAfter);
  const now = { ...totals, allocatedBytes: totals.allocatedBytes + sinceLast, at: Date.now() };
  process.stderr.write(`gc-tally ${JSON.stringify(now)}\n`);
});
