/**
 * The subjects run as deployed: compiled by tsc (bench/tsconfig.subjects.json: src and the
 * baseline) into .tmp/bench-build and run by plain node, as the image runs dist/cli/main.js.
 * With --tsx they run from source instead, which costs some 40 MB of RSS (tsx's loader thread)
 * and start-up time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../support/child-process.js';

const OUT_DIR = '.tmp/bench-build';

export interface Entries {
  /** Whether the entries are TypeScript, for tsx. */
  readonly tsx: boolean;
  readonly bridge: string;
  readonly baseline: string;
  /** The parallel-consumer subject's jar, when the run includes it (parallel-consumer.ts). */
  readonly parallelConsumer?: string | undefined;
}

export async function subjectEntries(tsx: boolean): Promise<Entries> {
  const baseline = 'bench/bridge/baseline/naive-consumer';
  if (tsx) return { tsx, bridge: 'src/cli/main.ts', baseline: `${baseline}.ts` };
  const entries = {
    tsx,
    bridge: `${OUT_DIR}/src/cli/main.js`,
    baseline: `${OUT_DIR}/${baseline}.js`,
  };
  await rm(join(ROOT, OUT_DIR), { recursive: true, force: true });
  const tsc = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'bench/tsconfig.subjects.json'],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const [code] = (await once(tsc, 'exit')) as [number | null];
  // tsc emits despite type errors (someone else's change in progress); only missing output stops us.
  const missing = [entries.bridge, entries.baseline].filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length > 0) throw new Error(`tsc (exit ${code}) did not write ${missing.join(', ')}`);
  if (code !== 0) process.stderr.write(`[bench] tsc exited ${code}; running what it emitted\n`);
  return entries;
}
