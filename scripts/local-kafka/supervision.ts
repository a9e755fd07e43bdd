// Stopping the broker's JVM cleanly on request, and making sure it dies with this process
// when this process dies first, however it dies.
import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { Writable } from 'node:stream';

const STOP_TIMEOUT_MS = 20_000;

// Runs in its own detached Node process, reading a pipe from ours. EOF without a byte first
// means our process died (crash, SIGTERM, SIGKILL: vitest, for one, exits on SIGTERM without
// running 'exit' listeners), so it kills the JVM and removes the temp data dir (argv: pid, dir).
const REAPER_SCRIPT = `
const [pid, dir] = process.argv.slice(1);
const alive = () => { try { process.kill(+pid, 0); return true; } catch { return false; } };
process.stdin.once('data', () => process.exit(0));
process.stdin.once('end', () => {
  if (alive()) process.kill(+pid, 'SIGKILL');
  const deadline = Date.now() + 5000;
  const cleanUp = () => {
    if (alive() && Date.now() < deadline) return setTimeout(cleanUp, 100);
    if (dir) require('node:fs').rmSync(dir, { recursive: true, force: true });
  };
  cleanUp();
});
`;

/** Returns an idempotent stop() and makes sure the JVM dies with this process otherwise. */
export function superviseBroker(
  child: ChildProcess,
  tempDir: string | undefined,
): () => Promise<void> {
  const reaper = startReaper(child, tempDir ?? '');
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= terminate(child).then(async () => {
      reaper.end('stand down');
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    });
    return stopping;
  };
}

function startReaper(child: ChildProcess, tempDir: string): Writable {
  const args = ['-e', REAPER_SCRIPT, String(child.pid), tempDir];
  const reaper = spawn(process.execPath, args, {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // Neither the reaper nor its pipe may keep this process alive.
  reaper.unref();
  const pipe = reaper.stdin as Socket;
  pipe.unref();
  return pipe;
}

/** SIGTERM lets Kafka shut down cleanly; SIGKILL only if it hangs past the deadline. */
async function terminate(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  if (await waitForExit(child, STOP_TIMEOUT_MS)) return;
  child.kill('SIGKILL');
  await waitForExit(child, STOP_TIMEOUT_MS);
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
