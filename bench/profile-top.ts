/**
 * The functions with the most self time in a V8 CPU profile (as `node --cpu-prof` writes it,
 * e.g. `npm run bench -- --cpu-prof`): `tsx bench/profile-top.ts <file.cpuprofile> [--top N]
 * [--areas]`. Self time is attributed from the profile's samples; functions are keyed by name
 * and location, or with --areas by package (node_modules/<name>), src folder, or node itself.
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT } from './support/child-process.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function fileOf({ callFrame: f }: ProfileNode): string {
  return f.url.startsWith('file://') ? relative(ROOT, fileURLToPath(f.url)) : f.url;
}

function where(node: ProfileNode): string {
  const file = fileOf(node);
  const name = node.callFrame.functionName || '(anonymous)';
  return file ? `${name}  ${file}:${node.callFrame.lineNumber + 1}` : name;
}

/** GC, idle and the like by name; else the package, the src folder, or node's own code. */
function area(node: ProfileNode): string {
  const file = fileOf(node);
  const name = node.callFrame.functionName;
  if (!file) return name.startsWith('(') ? name : '(native: V8 builtins, syscalls)';
  if (file.startsWith('node:')) return '(node internals)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
  if (pkg) return pkg;
  return /(src\/[^/]+)/.exec(file)?.[1] ?? file;
}

/** Milliseconds of self time per function, and the profile's total. */
function selfTimes(
  profile: Profile,
  key: (node: ProfileNode) => string,
): { byFunction: Map<string, number>; totalMs: number } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = nodes.get(id);
    if (!node) return;
    totalMs += ms;
    const name = key(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  });
  return { byFunction, totalMs };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, areas: { type: 'boolean', default: false } },
});
for (const file of positionals) {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const { byFunction, totalMs } = selfTimes(profile, values.areas ? area : where);
  const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  process.stdout.write(`${file}: ${(totalMs / 1000).toFixed(1)} s sampled\n`);
  for (const [name, ms] of top) {
    const share = ((ms * 100) / totalMs).toFixed(1).padStart(5);
    process.stdout.write(`  ${share}%  ${ms.toFixed(0).padStart(7)} ms  ${name}\n`);
  }
}
