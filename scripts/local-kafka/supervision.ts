// Stopping a broker's JVM cleanly on request, and making sure every JVM we started dies with
// this process when this process dies first, however it dies.
import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import type { Socket } from 'node:net';

const STOP_TIMEOUT_MS = 20_000;

// Runs in its own detached Node process, reading a pipe from ours: `+<pid>` and `-<pid>` lines
// add and remove the JVMs it watches, `done` sends it away. EOF without `done` means our process
// died (crash, SIGTERM, SIGKILL: vitest, for one, exits on SIGTERM without running 'exit'
// listeners), so it kills the JVMs it watches and removes the temp data dir (argv: dir or '').
const REAPER_SCRIPT = `
const dir = process.argv[1];
const watched = new Set();
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (pending + chunk).split('\\n');
  pending = lines.pop();
  for (const line of lines) {
    if (line === 'done') process.exit(0);
    if (line[0] === '+') watched.add(Number(line.slice(1)));
    if (line[0] === '-') watched.delete(Number(line.slice(1)));
  }
});
process.stdin.once('end', () => {
  for (const pid of watched) if (alive(pid)) process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 5000;
  const cleanUp = () => {
    if ([...watched].some(alive) && Date.now() < deadline) return setTimeout(cleanUp, 100);
    if (dir) require('node:fs').rmSync(dir, { recursive: true, force: true });
  };
  cleanUp();
});
`;

/** The detached watcher of this process's JVMs: told of each one started and each one gone. */
export interface Reaper {
  watch(child: ChildProcess): void;
  standDown(): void;
}

/** A reaper that also removes `tempDir` once the JVMs it killed are gone. */
export function startReaper(tempDir: string | undefined): Reaper {
  const reaper = spawn(process.execPath, ['-e', REAPER_SCRIPT, tempDir ?? ''], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Neither the reaper nor its pipe may keep this process alive.
  reaper.unref();
  const pipe = reaper.stdin as Socket;
  pipe.unref();
  // A reaper that is gone cannot be told anything more; that is no reason to crash.
  pipe.on('error', () => undefined);
  return {
    watch(child) {
      const { pid } = child;
      if (pid === undefined || exited(child)) return;
      pipe.write(`+${pid}\n`);
      // A pid once exited may be handed to another process: forget it.
      child.once('exit', () => pipe.writable && pipe.write(`-${pid}\n`));
    },
    standDown: () => pipe.end('done\n'),
  };
}

/** Returns an idempotent stop() and makes sure the JVM dies with this process otherwise. */
export function superviseBroker(
  child: ChildProcess,
  tempDir: string | undefined,
): () => Promise<void> {
  const reaper = startReaper(tempDir);
  reaper.watch(child);
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= terminate(child).then(async () => {
      reaper.standDown();
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    });
    return stopping;
  };
}

export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM lets Kafka shut down cleanly; SIGKILL only if it hangs past the deadline. */
export async function terminate(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  if (await waitForExit(child, STOP_TIMEOUT_MS)) return;
  await killNow(child);
}

/** SIGKILL: no controlled shutdown, as when a machine dies; resolves once the process is gone. */
export async function killNow(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await waitForExit(child, STOP_TIMEOUT_MS);
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
