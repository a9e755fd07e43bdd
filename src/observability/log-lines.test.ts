import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./log-lines.ts', import.meta.url));

/** Stdout of a process that writes `lines` through stdoutLines() and then does `end`. */
function stdoutOf(lines: number, end: string): string {
  const script = `
    import { stdoutLines } from ${JSON.stringify(MODULE)};
    const out = stdoutLines();
    for (let i = 0; i < ${lines}; i++) out.write('line ' + i + '\\n');
    ${end}`;
  try {
    return execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

const expected = (lines: number) => Array.from({ length: lines }, (_, i) => `line ${i}\n`).join('');

// Each test starts a Node process with tsx: seconds on a busy machine.
describe('stdoutLines', { timeout: 30_000 }, () => {
  it('writes every line, in order, once the turn ends', () => {
    expect(stdoutOf(1_000, '')).toBe(expected(1_000));
  });

  it('when the process exits in the same turn, then the lines held are written first', () => {
    expect(stdoutOf(3, 'process.exit(3);')).toBe(expected(3));
  });

  it('when the process dies of an uncaught error in the same turn, then the lines held are written first', () => {
    expect(stdoutOf(3, "throw new Error('boom');")).toBe(expected(3));
  });
});
