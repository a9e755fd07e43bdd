/**
 * The released contracts kept in the repository (`schemas/releases/<version>/`), and the check
 * of the current schemas against the newest of them: a released version's schemas never
 * change, and a later version's are backward compatible with them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Incompatibility, incompatibilities } from './compatibility.js';
import { type JsonSchema, jsonSchemaFiles } from './json-schemas.js';

export const RELEASES_DIR = 'schemas/releases';

export interface Release {
  readonly version: string;
  /** By path under the release folder: `commands/<type>.schema.json`, `events/<type>.schema.json`. */
  readonly schemas: ReadonlyMap<string, JsonSchema>;
}

/** The current schemas, by the same relative paths a release uses. */
export function currentSchemas(): Map<string, JsonSchema> {
  return new Map(
    [...jsonSchemaFiles()].map(([path, schema]) => [path.replace(/^schemas\//, ''), schema]),
  );
}

export function newestRelease(repoRoot: string): Release | undefined {
  const dir = join(repoRoot, RELEASES_DIR);
  if (!existsSync(dir)) return undefined;
  const versions = readdirSync(dir).filter((name) => /^\d+\.\d+\.\d+$/.test(name));
  const [version] = versions.sort(byVersion).reverse();
  if (version === undefined) return undefined;
  const schemas = new Map<string, JsonSchema>();
  for (const kind of ['commands', 'events']) {
    for (const file of readdirSync(join(dir, version, kind))) {
      const text = readFileSync(join(dir, version, kind, file), 'utf8');
      schemas.set(`${kind}/${file}`, JSON.parse(text) as JsonSchema);
    }
  }
  return { version, schemas };
}

/** What keeps the current schemas from following `release`; each line names a file. */
export function releaseProblems(
  release: Release,
  current: ReadonlyMap<string, JsonSchema>,
  version: string,
): string[] {
  const problems: string[] = [];
  for (const [path, released] of release.schemas) {
    const now = current.get(path);
    if (now === undefined) problems.push(`${path}: removed (released in ${release.version})`);
    else if (version === release.version) problems.push(...changed(path, released, now));
    else problems.push(...incompatibilities(released, now).map((i) => describe(path, i)));
  }
  if (version === release.version) {
    for (const path of current.keys()) {
      if (!release.schemas.has(path)) problems.push(`${path}: not in release ${version}`);
    }
  }
  return problems;
}

function changed(path: string, released: JsonSchema, now: JsonSchema): string[] {
  if (JSON.stringify(released) === JSON.stringify(now)) return [];
  return [`${path}: changed after release; bump the version in package.json and CONTRACT_VERSION`];
}

const describe = (path: string, i: Incompatibility) =>
  `${path}: ${i.path}: ${i.rule} (${i.detail})`;

function byVersion(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) {
    const diff = (x?.[i] ?? 0) - (y?.[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
