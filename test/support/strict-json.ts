/**
 * Log lines judged by Python's own JSON parser, told to refuse an object that repeats a key
 * (JSON.parse keeps the last one silently; log pipelines built on strict parsers drop the line).
 */
import { spawnSync } from 'node:child_process';

const SCRIPT = `
import json, sys
def unique(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError("duplicate key " + json.dumps(key))
        seen.add(key)
    return dict(pairs)
parsed = []
for number, line in enumerate(sys.stdin, 1):
    if line.strip():
        try:
            parsed.append(json.loads(line, object_pairs_hook=unique))
        except ValueError as error:
            sys.stderr.write("line %d: %s: %s\\n" % (number, error, line[:500]))
            sys.exit(1)
json.dump(parsed, sys.stdout)
`;

/** Every non-blank line as a JSON object; throws naming the first line that is not, or repeats a key. */
export function parseLinesStrictly(text: string): Array<Record<string, unknown>> {
  const result = spawnSync('python3', ['-c', SCRIPT], { input: text, encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`not strict JSON lines: ${result.stderr}`);
  return JSON.parse(result.stdout) as Array<Record<string, unknown>>;
}
