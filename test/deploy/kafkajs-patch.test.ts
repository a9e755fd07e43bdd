/**
 * The kafkajs the project runs is the registry's pinned tarball with the project's declared
 * patch applied, and nothing else: no file changed by hand or at run time, no patch silently
 * left unapplied (docs/design.md, "Dependencies").
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INSTALLED = join(ROOT, 'node_modules/kafkajs');

let work: string;
let expected: string;
let packed: { integrity: string; version: string };

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

beforeAll(async () => {
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8'));
  const { version } = lock.packages['node_modules/kafkajs'];
  work = await mkdtemp(join(tmpdir(), 'kafkajs-patch-'));
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--prefer-offline', '--pack-destination', work, `kafkajs@${version}`],
    { cwd: work },
  );
  const [{ filename, integrity }] = JSON.parse(stdout) as [{ filename: string; integrity: string }];
  packed = { integrity, version };
  await run('tar', ['-xzf', filename], { cwd: work });
  // The tree patch-package patches: node_modules/kafkajs, as the patch's paths name it.
  expected = join(work, 'node_modules/kafkajs');
  await cp(join(work, 'package'), expected, { recursive: true });
  const patch = join(ROOT, `patches/kafkajs+${version}.patch`);
  await run('git', ['apply', '--whitespace=nowarn', patch], { cwd: work });
}, 120_000);
afterAll(() => (work ? rm(work, { recursive: true, force: true }) : undefined));

describe('the installed kafkajs', () => {
  it("when compared with the registry's tarball of the pinned version, then the tarball is the one package-lock.json names", async () => {
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8'));
    expect(packed.integrity).toBe(lock.packages['node_modules/kafkajs'].integrity);
  });

  it('when compared file by file with that tarball plus patches/kafkajs+<version>.patch, then it is identical', async () => {
    const installed = await files(INSTALLED);
    expect(installed).toEqual(await files(expected));
    const differing: string[] = [];
    for (const file of installed) {
      const [mine, theirs] = await Promise.all([
        readFile(join(INSTALLED, file)),
        readFile(join(expected, file)),
      ]);
      if (!mine.equals(theirs)) differing.push(file);
    }
    expect(differing).toEqual([]);
  });

  it('when the patch is read, then it changes exactly the three files docs/design.md names, each change marked as ours', async () => {
    const patch = await readFile(join(ROOT, `patches/kafkajs+${packed.version}.patch`), 'utf8');
    const changed = [...patch.matchAll(/^\+\+\+ b\/node_modules\/kafkajs\/(\S+)$/gm)].map(
      (m) => m[1],
    );
    expect(changed).toEqual([
      'src/network/requestQueue/index.js',
      'src/protocol/recordBatch/record/v0/decoder.js',
      'src/protocol/requests/metadata/v0/response.js',
    ]);
    expect(patch.match(/signing-bridge patch/g)).toHaveLength(3);
    const pristine = await readFile(join(work, 'package/src/network/requestQueue/index.js'));
    const installed = await readFile(join(INSTALLED, 'src/network/requestQueue/index.js'));
    expect(installed.equals(pristine)).toBe(false);
  });
});
