#!/usr/bin/env node
// The compiled service of the image's runtime stage: the modules that dist/cli/main.js reaches
// through its imports, except the simulator (the Dockerfile's `simulator` target has it). So no
// simulator, no development tool compiled beside the service (config/write-docs,
// schemas/export) and nothing else unused goes into the image. Plain JavaScript, because the
// image's build stage runs it with node alone.
//
//   node scripts/image/service-files.mjs dist service   copies those modules into service/, with
//                                                        the package.json that makes Node read
//                                                        them as ES modules
//   node scripts/image/service-files.mjs dist --list    prints { files, packages } as JSON: the
//                                                        modules and the npm packages they import
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { argv, exit, stderr, stdout } from 'node:process';

const ENTRY = 'cli/main.js';
// `signing-bridge simulator` loads it on demand and, where it is absent, says so.
const LEFT_OUT = new Set(['cli/simulator-command.js']);
// tsc's output keeps each static import or re-export on one line of its own (`import ... from
// '...'`, `export ... from '...'`, `import '...'`); `import('...')` may stand anywhere. Anchored
// so that a string such as 'sb-forwarded-from' is not read as an import.
const IMPORT =
  /^\s*(?:import|export)\b[^'"\n;]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The modules (paths relative to dist) the entry reaches, and the packages they import. */
function reach(dist) {
  const files = new Set();
  const packages = new Set();
  const queue = [ENTRY];
  while (queue.length > 0) {
    const file = queue.pop();
    if (files.has(file) || LEFT_OUT.has(file)) continue;
    files.add(file);
    for (const [, from, bare, dynamic] of readFileSync(join(dist, file), 'utf8').matchAll(IMPORT)) {
      const specifier = from ?? bare ?? dynamic;
      if (specifier.startsWith('.')) queue.push(posix.join(posix.dirname(file), specifier));
      else if (!specifier.startsWith('node:')) packages.add(packageOf(specifier));
    }
  }
  return { files: [...files].sort(), packages: [...packages].sort() };
}

/** `pino/file` -> `pino`, `@scope/name/sub` -> `@scope/name`. */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

const [dist, target] = argv.slice(2);
if (!dist || !target) {
  stderr.write('usage: service-files.mjs DIST (OUT_DIR | --list)\n');
  exit(2);
}
const reached = reach(dist);
if (target === '--list') {
  stdout.write(`${JSON.stringify(reached, null, 2)}\n`);
} else {
  for (const file of reached.files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(dist, file), join(target, file));
  }
  // The repository's package.json says "type": "module"; the image needs nothing else of it.
  writeFileSync(join(target, 'package.json'), '{ "type": "module" }\n');
}
