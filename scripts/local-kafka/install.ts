// Assembling a Kafka release from Maven Central jars (pom.xml beside this file) into
// <repo>/.kafka/<version>/libs, once per version.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { DEFAULT_KAFKA_VERSION, type Family, releaseFamily } from './releases.js';
import { lastLines, runTool } from './tool-run.js';

const POM = fileURLToPath(new URL('./pom.xml', import.meta.url));
// Gitignored; holds one <version>/libs folder per installed release.
const KAFKA_HOME = fileURLToPath(new URL('../../.kafka', import.meta.url));
const INSTALLED_MARKER = '.installed';

/** Downloads the broker's jars once into <repo>/.kafka/<version>/libs and returns that folder. */
export async function ensureKafkaInstalled(version = DEFAULT_KAFKA_VERSION): Promise<string> {
  const family = releaseFamily(version);
  const home = join(KAFKA_HOME, version);
  const libs = join(home, 'libs');
  if (existsSync(join(libs, INSTALLED_MARKER))) return libs;

  // Resolve into a staging folder and rename it into place, so an interrupted download never
  // looks installed and two concurrent installs cannot interleave their jars.
  await mkdir(KAFKA_HOME, { recursive: true });
  const staging = await mkdtemp(join(KAFKA_HOME, `staging-${version}-`));
  try {
    await copyDependencies(version, family, staging);
    await writeFile(join(staging, INSTALLED_MARKER), `${new Date().toISOString()}\n`);
    await mkdir(home, { recursive: true });
    await rename(staging, libs);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (existsSync(join(libs, INSTALLED_MARKER))) return libs;
    throw error;
  }
  return libs;
}

async function copyDependencies(version: string, family: Family, outputDir: string): Promise<void> {
  const profile = ['-f', POM, '-P', family, `-Dkafka.version=${version}`];
  const goal = ['dependency:copy-dependencies', `-DoutputDirectory=${outputDir}`];
  const { code, output } = await runTool('mvn', ['--batch-mode', '--quiet', ...profile, ...goal]);
  if (code !== 0) {
    throw new Error(`mvn could not resolve Kafka ${version} (exit ${code}): ${mavenError(output)}`);
  }
}

/** Maven's first [ERROR] line carries the cause; the lines after it are boilerplate. */
export function mavenError(output: string): string {
  const lines = stripVTControlCharacters(output).split('\n');
  return lines.find((line) => /^\[ERROR\] \S/.test(line)) ?? lastLines(output, 30);
}
