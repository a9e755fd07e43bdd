import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface CliRun {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  /** The exit code once it exited. */
  readonly exit: Promise<number | null>;
  /** Resolves once stderr (or stdout) holds a match; rejects if the process exits first. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<string>;
  /** stdout's lines parsed as JSON (for --json). */
  json<T = Record<string, unknown>>(): T[];
}

const running = new Set<ChildProcess>();

/** `signing-bridge <args>` as its own process, its environment on top of this one's. */
export function cli(args: string[], env: Record<string, string> = {}, stdin?: string): CliRun {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  if (stdin !== undefined) child.stdin?.end(stdin);
  const output = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    output[stream] += chunk;
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData('stdout'));
  child.stderr?.on('data', onData('stderr'));
  const exit = once(child, 'exit').then(([code]) => {
    running.delete(child);
    for (const listener of listeners) listener();
    return code as number | null;
  });
  return {
    child,
    output,
    exit,
    waitFor(pattern, stream = 'stderr', timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            finish(new Error(`no ${pattern} on ${stream} in ${timeoutMs} ms:\n${output.stderr}`)),
          timeoutMs,
        );
        const check = () => {
          const match = pattern.exec(output[stream]);
          if (match) finish(undefined, match[0]);
          else if (child.exitCode !== null)
            finish(new Error(`exited ${child.exitCode} before ${pattern}:\n${output.stderr}`));
        };
        const finish = (error?: Error, found?: string) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve(found as string);
        };
        listeners.add(check);
        check();
      });
    },
    json() {
      return output.stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line));
    },
  };
}

/** Kills whatever is still running (for afterEach). */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}
