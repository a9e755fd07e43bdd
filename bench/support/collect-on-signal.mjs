/**
 * Preloaded into the bridge by the ledger scenario (node --expose-gc --import): on SIGWINCH it
 * runs a full garbage collection and writes the heap then in use as one line on stderr,
 * `live-heap <bytes>`, so that the memory the ledger's entries hold is measured without the
 * garbage a restore leaves, which a scrape at any moment counts or not as collections happen to
 * fall. SIGWINCH: nothing else in the bridge listens to it (SIGUSR1 starts the inspector, SIGUSR2
 * is gc-tally's). Plain JavaScript: it runs beside compiled code.
 */
import { getHeapStatistics } from 'node:v8';

process.on('SIGWINCH', () => {
  globalThis.gc();
  process.stderr.write(`live-heap ${getHeapStatistics().used_heap_size}\n`);
});
