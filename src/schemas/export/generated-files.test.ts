import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from './generated-files.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('files derived from the schemas', () => {
  for (const [path, content] of generatedFiles(root)) {
    it(`${path} matches the schemas (run \`npm run generate\` when this fails)`, () => {
      expect(existsSync(`${root}${path}`), `${path} is missing`).toBe(true);
      expect(readFileSync(`${root}${path}`, 'utf8')).toBe(content);
    });
  }
});
