/** Writes every file derived from the zod schemas and code tables: JSON Schemas, AsyncAPI, docs/platform-codes.md, docs/error-codes.md. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from '../src/schemas/export/generated-files.js';

const root = fileURLToPath(new URL('../', import.meta.url));
for (const [path, content] of generatedFiles(root)) {
  mkdirSync(dirname(`${root}${path}`), { recursive: true });
  writeFileSync(`${root}${path}`, content);
  console.log(`wrote ${path}`);
}
