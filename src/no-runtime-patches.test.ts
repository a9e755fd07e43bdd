/**
 * No module of the service changes a library's code at run time (docs/design.md,
 * "Dependencies"): a defect of a dependency is fixed by a declared patch in patches/, not by
 * swapping its modules or its prototypes while the process runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('.', import.meta.url));

/** What replacing a library's internals takes: reaching its modules, or rewriting prototypes. */
const PATCHING = [
  /\bcreateRequire\b/,
  /\brequire\.cache\b/,
  /\.prototype\.\w+\s*=[^=]/,
  /\bObject\.setPrototypeOf\(/,
  /['"][\w@/.-]+\/src\/[\w/.-]+['"]/,
];

function sources(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(path))
    .map((path) => join(SRC, path));
}

function patchingLines(text: string): string[] {
  return text.split('\n').filter((line) => PATCHING.some((pattern) => pattern.test(line)));
}

describe('the service modules', () => {
  it('when every module of src/ is read, then none reaches into a library or rewrites a prototype', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(250);
    const found = files.flatMap((file) =>
      patchingLines(readFileSync(file, 'utf8')).map(
        (line) => `${relative(SRC, file)}: ${line.trim()}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it('when a module did what the old kafkajs swaps did, then the check names it', () => {
    const swaps = [
      "const Decoder = createRequire(import.meta.url)('kafkajs/src/protocol/decoder.js');",
      'if (cached) require.cache[ENCODER_PATH].exports = PooledEncoder;',
      'Decoder.prototype.readVarLong = readSmallVarLong;',
      'Object.setPrototypeOf(PooledEncoder, Encoder);',
    ];
    expect(swaps.filter((line) => patchingLines(line).length === 0)).toEqual([]);
  });
});
