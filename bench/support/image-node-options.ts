/**
 * The NODE_OPTIONS the service's image runs with, read from its Dockerfile, so the benchmark
 * measures the bridge as it ships (the heap limit shapes both its memory and its GC time).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './child-process.js';

export function nodeOptionsOf(dockerfile: string): string {
  const match = /^ENV NODE_OPTIONS="([^"]*)"$/m.exec(dockerfile);
  if (match?.[1] === undefined) {
    throw new Error('the Dockerfile sets no ENV NODE_OPTIONS="..." line for the benchmark to use');
  }
  return match[1];
}

export const IMAGE_NODE_OPTIONS = nodeOptionsOf(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
