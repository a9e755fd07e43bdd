/**
 * Node child processes for benchmarks (or, with `command`, another program: the JVM of the
 * parallel-consumer subject): each entry (TypeScript under tsx, or compiled JavaScript)
 * runs in a process of its own (its own event loop, CPU time and memory), its output read line
 * by line to the end so it can never block on a full pipe, and stopped with SIGTERM (SIGKILL
 * only past a deadline).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface NodeChildOptions {
  /** Prefix of the lines echoed to our stderr, e.g. `bridge`. */
  readonly name: string;
  /** The entry script, relative to the repository root, and its arguments (see `command`). */
  readonly args: readonly string[];
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags before the entry, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
  /** Whether the entry is TypeScript, run under tsx (default true). */
  readonly tsx?: boolean;
  /**
   * Another program than node, e.g. `java`: then `args` are all its arguments, and `nodeFlags`
   * and `tsx` are not used.
   */
  readonly command?: string;
  /** Which output lines are echoed; default: every stderr line, no stdout line. */
  readonly echo?: (line: string, stream: 'stdout' | 'stderr') => boolean;
  /** Which output lines are kept in `kept`, from the start; default none. */
  readonly keep?: (line: string) => boolean;
}

type LineListener = (line: string) => void;

export class NodeChild {
  readonly process: ChildProcess;
  readonly pid: number;
  /** The lines `keep` chose, in order. */
  readonly kept: string[] = [];
  readonly #listeners = new Set<LineListener>();
  readonly #exited: Promise<number | null>;
  readonly #name: string;

  constructor(options: NodeChildOptions) {
    this.#name = options.name;
    const loader = options.tsx === false ? [] : ['--import', 'tsx'];
    const args = options.command
      ? [...options.args]
      : [...(options.nodeFlags ?? []), ...loader, ...options.args];
    this.process = spawn(options.command ?? process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (this.process.pid === undefined) throw new Error(`${options.name} did not start`);
    this.pid = this.process.pid;
    this.#exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
    const echo = options.echo ?? ((_: string, stream: string) => stream === 'stderr');
    for (const stream of ['stdout', 'stderr'] as const) {
      const lines = createInterface({ input: this.process[stream] as Readable });
      lines.on('line', (line) => {
        if (echo(line, stream)) process.stderr.write(`[${options.name}] ${line}\n`);
        if (options.keep?.(line)) this.kept.push(line);
        for (const listener of this.#listeners) listener(line);
      });
    }
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Calls `listener` with every output line from now on. */
  onLine(listener: LineListener): void {
    this.#listeners.add(listener);
  }

  /**
   * Sends `signal` and resolves with the match of the first line that answers it; undefined when
   * none comes within the timeout (or the process exits first).
   */
  async ask(
    signal: NodeJS.Signals,
    answer: RegExp,
    timeoutMs: number,
  ): Promise<RegExpExecArray | undefined> {
    const answered = this.waitForLine(answer, timeoutMs);
    this.process.kill(signal);
    return answered.catch(() => undefined);
  }

  /** The match of the first line to match, from now on; rejects on exit or after the timeout. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        settle();
      };
      const listener: LineListener = (line) => {
        const match = pattern.exec(line);
        if (match) done(() => resolve(match));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no line matching ${pattern} in ${timeoutMs} ms`))),
        timeoutMs,
      );
      this.#listeners.add(listener);
      this.#exited.then((code) =>
        done(() => reject(new Error(`exited (${code}) before a line matched ${pattern}`))),
      );
    });
  }

  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves with the exit code. */
  async stop(graceMs = 30_000): Promise<number | null> {
    if (!this.running) return this.process.exitCode;
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      process.stderr.write(`[${this.#name}] still running ${graceMs} ms after SIGTERM: SIGKILL\n`);
      this.process.kill('SIGKILL');
    }, graceMs);
    const code = await this.#exited;
    clearTimeout(timer);
    return code;
  }
}
