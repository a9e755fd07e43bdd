/**
 * Throughput of the simulator's create-draft path: the simulator runs in a child process (its
 * own event loop, as in real use), this process drives signed createDraft requests through an
 * undici Pool for a fixed time after a warm-up, then prints requests/s, latency percentiles and
 * errors, and writes them to bench/results/simulator-throughput.json. Not a test: run it with
 * `npm run bench:simulator -- [--connections N] [--pipelining N] [--duration S] [--warmup S]
 * [--cpu-prof]` (--cpu-prof writes the simulator's V8 profile to bench/results/profiles/).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { md5Signature } from '../src/api-client/signature.js';
import { OPERATIONS } from '../src/schemas/platform/operations.js';
import { cpuSeconds } from './support/proc-stats.js';
import { startSimulatorProcess } from './support/simulator-process.js';

const RESULTS = new URL('results/simulator-throughput.json', import.meta.url);
const APP = { token: 'demo-app-token', secret: 'demo-app-secret' } as const;

interface Settings {
  readonly connections: number;
  readonly pipelining: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly cpuProf: boolean;
}

function settings(): Settings {
  const { values } = parseArgs({
    options: {
      connections: { type: 'string', default: '32' },
      pipelining: { type: 'string', default: '4' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  return {
    connections: atLeast(1, 'connections', values.connections),
    pipelining: atLeast(1, 'pipelining', values.pipelining),
    durationS: atLeast(1, 'duration', values.duration),
    warmupS: atLeast(0, 'warmup', values.warmup),
    cpuProf: values['cpu-prof'],
  };
}

function atLeast(min: number, name: string, value: string): number {
  const n = Number(value);
  if (!(n >= min)) throw new Error(`--${name} must be a number of at least ${min}, not "${value}"`);
  return n;
}

/** Headers are signed once per millisecond: the signature covers only token, secret and time. */
function signedHeaders(): () => Record<string, string> {
  let at = 0;
  let headers: Record<string, string> = {};
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      const timestamp = String(now);
      headers = {
        'content-type': 'application/json;charset=UTF-8',
        'x-svc-open-accesstoken': APP.token,
        'x-svc-open-timestamp': timestamp,
        'x-svc-open-signature': md5Signature(APP.token, APP.secret, timestamp),
      };
    }
    return headers;
  };
}

/** A valid draft of the default fixtures' default category, with a bizId unique to this request. */
function draftBody(runId: string): () => string {
  let sequence = 0;
  const signatories = JSON.stringify([
    {
      tenantType: 'COMPANY',
      tenantName: 'Demo Trading Co., Ltd.',
      actions: [{ type: 'COMPANY', sealId: '2001' }],
    },
    {
      tenantType: 'PERSONAL',
      tenantName: 'Bob Chen',
      receiver: { contact: '13900000001', contactType: 'MOBILE' },
    },
  ]);
  return () => {
    sequence += 1;
    return `{"bizId":"bench-${runId}-${sequence}","subject":"Service agreement","signatories":${signatories}}`;
  };
}

interface Window {
  readonly start: number;
  readonly end: number;
}

interface Tally {
  latenciesMs: number[];
  errors: Map<string, number>;
}

/** One request; its latency and outcome count only when it ran wholly inside the window. */
async function draftOnce(
  pool: Pool,
  headers: () => Record<string, string>,
  body: () => string,
  window: Window,
  tally: Tally,
): Promise<void> {
  const started = performance.now();
  let failure: string | undefined;
  try {
    const response = await pool.request({
      path: OPERATIONS.createDraft.path,
      method: 'POST',
      headers: headers(),
      body: body(),
    });
    const text = await response.body.text();
    const code =
      response.statusCode === 200 ? (JSON.parse(text) as { code?: number }).code : undefined;
    if (code !== 0) failure = code === undefined ? `http ${response.statusCode}` : `code ${code}`;
  } catch (error) {
    failure = `error ${(error as { code?: string }).code ?? (error as Error).name}`;
  }
  const ended = performance.now();
  if (started < window.start || ended > window.end) return;
  tally.latenciesMs.push(ended - started);
  if (failure !== undefined) tally.errors.set(failure, (tally.errors.get(failure) ?? 0) + 1);
}

interface Measured extends Tally {
  readonly cpu: CpuShares;
}

/** Keeps connections × pipelining requests in flight until the window closes. */
async function drive(url: string, serverPid: number | undefined, s: Settings): Promise<Measured> {
  const pool = new Pool(url, { connections: s.connections, pipelining: s.pipelining });
  const headers = signedHeaders();
  const body = draftBody(Date.now().toString(36));
  const now = performance.now();
  const window = { start: now + s.warmupS * 1000, end: now + (s.warmupS + s.durationS) * 1000 };
  const tally: Tally = { latenciesMs: [], errors: new Map() };
  const cpu = measureCpu(serverPid, window);
  const worker = async () => {
    while (performance.now() < window.end) await draftOnce(pool, headers, body, window, tally);
  };
  await Promise.all(Array.from({ length: s.connections * s.pipelining }, worker));
  await pool.close();
  return { ...tally, cpu: await cpu };
}

/** Shares of one core used over the window: 1.0 is one core busy all the time. */
interface CpuShares {
  readonly server?: number;
  readonly loadGenerator: number;
}

async function measureCpu(serverPid: number | undefined, window: Window): Promise<CpuShares> {
  await sleepUntil(window.start);
  const [load0, server0, t0] = [process.cpuUsage(), await cpuSeconds(serverPid), performance.now()];
  await sleepUntil(window.end);
  const [load1, server1, t1] = [
    process.cpuUsage(load0),
    await cpuSeconds(serverPid),
    performance.now(),
  ];
  const wallS = (t1 - t0) / 1000;
  const loadGenerator = (load1.user + load1.system) / 1e6 / wallS;
  if (server0 === undefined || server1 === undefined) return { loadGenerator };
  return { loadGenerator, server: (server1 - server0) / wallS };
}

const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

type Summary = ReturnType<typeof summarise>;

function summarise(measured: Measured, s: Settings) {
  const sorted = Float64Array.from(measured.latenciesMs).sort();
  const at = (p: number) =>
    round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
  const { cpuProf: _cpuProf, ...kept } = s;
  return {
    date: new Date().toISOString(),
    machine: { cpus: availableParallelism(), model: cpus()[0]?.model, node: process.version },
    settings: kept,
    requests: sorted.length,
    requestsPerSecond: Math.round(sorted.length / s.durationS),
    latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round(sorted.at(-1) ?? 0) },
    errors: [...measured.errors.values()].reduce((sum, n) => sum + n, 0),
    errorKinds: Object.fromEntries(measured.errors),
    cpu: {
      loadGenerator: round(measured.cpu.loadGenerator),
      server: measured.cpu.server && round(measured.cpu.server),
    },
    serverCpuMicrosPerRequest: cpuPerRequest(measured.cpu.server, s.durationS, sorted.length),
  };
}

/**
 * Simulator CPU microseconds per request: unlike requests/s it barely depends on what else the
 * machine runs, and 1e6 divided by it is the rate one fully busy core would reach.
 */
function cpuPerRequest(share: number | undefined, seconds: number, requests: number) {
  return share === undefined || requests === 0
    ? undefined
    : Math.round((share * seconds * 1e6) / requests);
}

const round = (n: number) => Math.round(n * 100) / 100;

function print(r: Summary): void {
  const percent = (share: number | undefined) =>
    share === undefined ? 'n/a' : `${Math.round(share * 100)}%`;
  const micros = (value: number | undefined) => (value === undefined ? 'n/a' : `${value} µs`);
  const rows: [string, string][] = [
    ['requests/s', r.requestsPerSecond.toLocaleString('en')],
    ['requests', r.requests.toLocaleString('en')],
    [
      'latency p50 / p90 / p99 / max',
      `${r.latencyMs.p50} / ${r.latencyMs.p90} / ${r.latencyMs.p99} / ${r.latencyMs.max} ms`,
    ],
    ['errors', r.errors === 0 ? '0' : `${r.errors} ${JSON.stringify(r.errorKinds)}`],
    [
      'CPU simulator / load generator',
      `${percent(r.cpu.server)} / ${percent(r.cpu.loadGenerator)} of one core`,
    ],
    ['simulator CPU per request', micros(r.serverCpuMicrosPerRequest)],
  ];
  const { connections, pipelining, durationS, warmupS } = r.settings;
  process.stdout.write(
    `simulator createDraft throughput: ${connections} connections x pipelining ${pipelining}, ` +
      `${durationS} s after ${warmupS} s warm-up, ${r.machine.cpus} CPUs, node ${r.machine.node}\n`,
  );
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, value] of rows) process.stdout.write(`  ${name.padEnd(width)}  ${value}\n`);
}

async function main(): Promise<void> {
  const s = settings();
  const { child, url } = await startSimulatorProcess({
    cpuProfDir: s.cpuProf ? 'bench/results/profiles' : undefined,
  });
  try {
    const summary = summarise(await drive(url, child.pid, s), s);
    print(summary);
    await mkdir(new URL('.', RESULTS), { recursive: true });
    await writeFile(RESULTS, `${JSON.stringify(summary, null, 2)}\n`);
    process.stdout.write(`written to ${fileURLToPath(RESULTS)}\n`);
  } finally {
    await child.stop();
  }
}

await main();
