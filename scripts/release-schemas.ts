/**
 * Keeps the current command and event schemas as the release of package.json's version, in
 * schemas/releases/<version>/: the baseline the compatibility check holds later versions to.
 * Refuses to change a release already kept.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentSchemas, RELEASES_DIR } from '../src/schemas/export/releases.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
};
const dir = join(root, RELEASES_DIR, version);
if (existsSync(dir)) {
  console.error(
    `${RELEASES_DIR}/${version} exists: a release is never rewritten; bump the version`,
  );
  process.exit(1);
}
for (const [path, schema] of currentSchemas()) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${RELEASES_DIR}/${version}/${path}`);
}
