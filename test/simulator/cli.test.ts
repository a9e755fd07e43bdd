// `signing-bridge simulator` as its own process: options, a request log line, admin from outside,
// and a graceful exit on SIGTERM / SIGINT.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdminClient } from '../../src/simulator/index.js';
import { waitUntil } from '../support/wait.js';
import { draft } from './support/contracts.js';
import { RawPlatform } from './support/raw-platform.js';

const started: ChildProcess[] = [];

function cli(args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'simulator', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk));
  const exit = once(child, 'exit').then(([code]) => code as number);
  return { child, output, exit };
}

/** The URL the simulator says it listens on; it fails at once, with its stderr, if it exits first. */
async function listening(run: ReturnType<typeof cli>): Promise<string> {
  const { url } = await waitUntil(
    () => ({
      url: /listening on (http:\/\/\S+)/.exec(run.output.stderr)?.[1],
      exitCode: run.child.exitCode,
      stderr: run.output.stderr,
    }),
    {
      until: (seen) => seen.url !== undefined || seen.exitCode !== null,
      what: 'the simulator to say where it listens',
      timeoutMs: 10_000,
    },
  );
  if (url === undefined) throw new Error(`simulator exited before listening: ${run.output.stderr}`);
  return url;
}

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('signing-bridge simulator (CLI)', () => {
  it('--help documents every option and exits 0', async () => {
    const run = cli(['--help']);
    expect(await run.exit).toBe(0);
    for (const flag of [
      '--port',
      '--host',
      '--fixtures',
      '--auth-window-ms',
      '--nonce',
      '--latency-ms',
      '--error-rate',
      '--rps',
      '--fault',
      '--quiet',
      '--header-prefix',
    ]) {
      expect(run.output.stdout).toContain(flag);
    }
    expect(run.output.stdout).toContain('demo-app-token');
  });

  it('an unknown option or a bad value exits 2 with the usage', async () => {
    expect(await cli(['--bogus']).exit).toBe(2);
    const bad = cli(['--error-rate', '2']);
    expect(await bad.exit).toBe(2);
    expect(bad.output.stderr).toContain('--error-rate');
    const badFault = cli(['--fault', 'late,operation=addSignatory']);
    expect(await badFault.exit).toBe(2);
    expect(badFault.output.stderr).toContain(
      '--fault "late,operation=addSignatory": late needs ms',
    );
  });

  it('invalid fixtures stop the start with the bad paths named (exit 1)', async () => {
    const file = join(tmpdir(), `fixtures-${process.pid}.json`);
    await writeFile(file, JSON.stringify({ company: {}, categories: [], credentials: [] }));
    const run = cli(['--port', '0', '--fixtures', file]);
    expect(await run.exit).toBe(1);
    expect(run.output.stderr).toContain('company.name');
    expect(run.output.stderr).toContain('categories');
  });

  it('serves the platform, logs one line per request, and exits 0 on SIGTERM', async () => {
    const run = cli(['--port', '0']);
    const url = await listening(run);
    const answer = await new RawPlatform(url).call('createDraft', draft());
    expect(answer.body.code).toBe(0);
    await new AdminClient(url).waitUntilReady();
    // Whole lines only: the last piece of stdout may be a line still being written.
    const lines = await waitUntil(() => run.output.stdout.split('\n').slice(0, -1), {
      until: (whole) => whole.some((l) => l.includes('platform call')),
      what: 'the log line of the platform call on stdout',
    });
    const line = lines.find((l) => l.includes('platform call')) as string;
    expect(JSON.parse(line)).toMatchObject({
      operation: 'createDraft',
      code: '0',
      httpStatus: 200,
    });
    expect(run.output.stdout).not.toContain('demo-app-secret');
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
  });

  it('flags configure auth and faults; --quiet logs no request; SIGINT exits 0', async () => {
    const run = cli([
      '--port',
      '0',
      '--quiet',
      '--nonce',
      '--latency-ms',
      '5',
      '--error-rate',
      '0.25',
      '--rps',
      '100',
      '--fault',
      'late,operation=addSignatory,ms=4000',
      '--fault',
      'kind=maintenance,operation=createDraft,status=503,times=2',
    ]);
    const url = await listening(run);
    const admin = new AdminClient(url);
    expect(await admin.faults()).toEqual({
      latency: { fixedMs: 5 },
      operations: { '*': { errorRate: 0.25, error: 'http503' } },
      requestsPerSecond: 100,
      script: [
        { operation: 'addSignatory', kind: 'late', times: 1, ms: 4000 },
        { operation: 'createDraft', kind: 'maintenance', times: 2, status: 503 },
      ],
    });
    const withoutNonce = await new RawPlatform(url).call('remindSignatories', { bizId: 'x' });
    expect([441, 503]).toContain(withoutNonce.status);
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(0);
    expect(run.output.stdout).toBe('');
  });
});
