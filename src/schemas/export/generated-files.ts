/**
 * Every file derived from the schemas, by path, with its exact content (of docs/design.md, the
 * part between its in-doubt markers).
 */
import { readFileSync } from 'node:fs';
import { asyncApiDocument } from './asyncapi.js';
import { errorCodesMarkdown } from './error-codes-doc.js';
import { withInDoubtTable } from './in-doubt-doc.js';
import { jsonSchemaFiles } from './json-schemas.js';
import { platformCodesMarkdown } from './platform-codes-doc.js';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export function generatedFiles(repoRoot: string): Map<string, string> {
  const { version } = JSON.parse(readFileSync(`${repoRoot}/package.json`, 'utf8')) as {
    version: string;
  };
  const files = new Map<string, string>();
  for (const [path, schema] of jsonSchemaFiles()) files.set(path, json(schema));
  files.set('schemas/asyncapi.json', json(asyncApiDocument(version)));
  files.set('docs/platform-codes.md', platformCodesMarkdown());
  files.set('docs/error-codes.md', errorCodesMarkdown());
  const design = readFileSync(`${repoRoot}/docs/design.md`, 'utf8');
  files.set('docs/design.md', withInDoubtTable(design));
  return files;
}
