/**
 * The bridge's heap in use right after a full collection: it preloads
 * bench/support/collect-on-signal.mjs, which answers SIGWINCH with the figure.
 */
import { join } from 'node:path';
import { type NodeChild, ROOT } from '../support/child-process.js';

export const LIVE_HEAP_LINE = /^live-heap (\d+)$/;

/** Node flags for the subject that let liveHeapBytes ask it. */
export const LIVE_HEAP_FLAGS = [
  '--expose-gc',
  '--import',
  join(ROOT, 'bench/support/collect-on-signal.mjs'),
];

/** Bytes in use after a full collection; undefined when it does not answer within the timeout. */
export async function liveHeapBytes(
  child: NodeChild,
  timeoutMs = 30_000,
): Promise<number | undefined> {
  const answer = await child.ask('SIGWINCH', LIVE_HEAP_LINE, timeoutMs);
  return answer && Number(answer[1]);
}
