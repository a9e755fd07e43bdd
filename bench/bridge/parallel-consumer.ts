/**
 * The parallel-consumer subject (bench/parallel-consumer/, a Maven module): built on demand by
 * `mvn package` into the git-ignored .tmp/parallel-consumer/, once per content of its pom and
 * sources (a hash of them names the build), and run as `java -Xmx256m -jar` by subjects.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { mavenError } from '../../scripts/local-kafka/install.js';
import { runTool } from '../../scripts/local-kafka/tool-run.js';
import { ROOT } from '../support/child-process.js';

const MODULE = join(ROOT, 'bench/parallel-consumer');
const BUILDS = join(ROOT, '.tmp/parallel-consumer');
const JAR = 'pc-subject.jar';

/** The module's pom and sources, hashed: a change of either is a new build. */
async function sourceHash(): Promise<string> {
  const files = [join(MODULE, 'pom.xml'), ...(await filesUnder(join(MODULE, 'src')))].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash
      .update(relative(MODULE, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
    ),
  );
  return nested.flat();
}

/**
 * The path of the subject's jar (its dependencies in lib/ beside it, as its manifest says),
 * built first when this content of the module has not been built yet.
 */
export async function parallelConsumerJar(progress: (message: string) => void): Promise<string> {
  const build = join(BUILDS, await sourceHash());
  const jar = join(build, JAR);
  if (existsSync(jar)) return jar;
  progress('building the parallel-consumer subject (mvn package, bench/parallel-consumer)');
  // Built into a staging folder and renamed into place: an interrupted build never looks done.
  const staging = `${build}.staging-${process.pid}`;
  await mkdir(BUILDS, { recursive: true });
  try {
    const { code, output } = await runTool('mvn', [
      '--batch-mode',
      '--quiet',
      '-f',
      join(MODULE, 'pom.xml'),
      `-Dpc.build.dir=${staging}`,
      'package',
    ]);
    if (code !== 0) {
      throw new Error(
        `mvn could not build the parallel-consumer subject (exit ${code}): ${mavenError(output)}`,
      );
    }
    // Another benchmark may have built the same content meanwhile: its build is as good.
    await rename(staging, build).catch((error: unknown) => {
      if (!existsSync(jar)) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return jar;
}
