/** The service as it is deployed: its environment, and `signing-bridge run` as a process. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../../support/wait.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

/**
 * The environment of one bridge with topics and a group of its own, calling the simulator at
 * `simulatorUrl`, quick to hand over; `extra` adds Kafka's address and the rest.
 */
export function serviceEnvironment(
  prefix: string,
  simulatorUrl: string,
  extra: Record<string, string>,
): Record<string, string> {
  return {
    KAFKA_GROUP_ID: `service-${prefix}`,
    TOPIC_PREFIX: prefix,
    TOPIC_PARTITIONS: '2',
    SIGNING_API_BASE_URL: simulatorUrl,
    SIGNING_APP_TOKEN: 'demo-app-token',
    SIGNING_APP_SECRET: 'demo-app-secret',
    HANDOVER_TIMEOUT_MS: '2000',
    PRECONDITION_TIMEOUT_MS: '300',
    HTTP_PORT: '0',
    ...extra,
  };
}

/** Runs with exactly `env` (and PATH): nothing of the test's environment leaks in. */
export function runCommand(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'run', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output, exited };
}

/** Resolves once the process has logged `message` (its JSON log lines are on stdout). */
export async function logged(output: { stdout: string }, message: string, timeoutMs = 60_000) {
  await waitUntil(() => output.stdout, {
    until: (stdout) => stdout.includes(`"msg":"${message}"`),
    what: `the log line "${message}"`,
    timeoutMs,
  });
}
