// Validates an AsyncAPI document with @asyncapi/parser and prints its findings as JSON lines;
// exits 1 when it has errors or warnings. Usage: node validate-asyncapi.cjs <parser dir> <file>
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { resolve } = require('node:path');

const [parserDir, file] = process.argv.slice(2);
const { Parser } = createRequire(resolve(parserDir, 'package.json'))('@asyncapi/parser');
// The parser's severities: 0 error, 1 warning, 2 information, 3 hint.
const SEVERITY = ['error', 'warning', 'information', 'hint'];

new Parser().parse(readFileSync(file, 'utf8')).then(({ document, diagnostics }) => {
  for (const d of diagnostics) {
    const finding = {
      severity: SEVERITY[d.severity],
      code: d.code,
      path: d.path.join('.'),
      message: d.message,
    };
    console.log(JSON.stringify(finding));
  }
  const failed = !document || diagnostics.some((d) => d.severity <= 1);
  process.exit(failed ? 1 : 0);
});
