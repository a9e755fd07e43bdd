/**
 * A local Kafka broker for the demo, run by broker-process.ts in a new process group. A
 * terminal's Ctrl-C reaches the whole foreground group: a JVM started from the demo's own
 * process would shut down at once, while the bridge still needs the broker to leave its group
 * and commit. In its own group, the broker stops last, when the demo says so.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface LocalBroker {
  readonly brokers: string[];
  readonly version: string;
  stop(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BROKER_PROCESS = fileURLToPath(new URL('./broker-process.ts', import.meta.url));

export async function startLocalBroker(): Promise<LocalBroker> {
  const child = spawn(process.execPath, ['--import', 'tsx', BROKER_PROCESS], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => {
    child.once('error', () => resolve());
    child.once('exit', () => resolve());
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk;
  });
  const ready = await firstLine(child);
  if (ready === undefined) {
    await exited;
    throw new Error(`the local Kafka broker did not start: ${errors.trim() || 'no reason given'}`);
  }
  const { brokers, version } = JSON.parse(ready) as { brokers: string[]; version: string };
  return {
    brokers,
    version,
    stop: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}

/** Undefined when the process ends without printing a line. */
async function firstLine(child: ChildProcess): Promise<string | undefined> {
  if (!child.stdout) return undefined;
  for await (const line of createInterface({ input: child.stdout })) return line;
  return undefined;
}
