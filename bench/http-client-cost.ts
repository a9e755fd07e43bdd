/**
 * What one platform call costs the calling process in CPU, layer by layer, against one local
 * server that answers every POST with the same small success envelope. Each subject runs in a
 * process of its own (fresh JIT, its own CPU time), in rounds that alternate the subjects:
 *
 * - `socket`: the floor. Plain `net` sockets, one request at a time on each, a prebuilt head,
 *   and only `content-length` answers parsed. No bounds, no timeouts, no pool: not a client,
 *   only what any HTTP/1.1 client in Node pays for the socket work.
 * - `undici`: an undici Pool and `dispatch` with a handler that only gathers the body.
 * - `exchange`: the same Pool through the bridge's `exchange` (src/api-client/http-exchange.ts):
 *   the answer's bounds and the sent/not-sent report.
 * - `client`: `SigningClient.remindSignatories`, the bridge's whole api-client: the request
 *   checked, the rate control (unlimited here), the gate, the call's deadline, signing, the
 *   answer read and checked.
 *
 * `npm run bench:http -- [--connections N] [--requests N] [--rounds N]`; prints the table and
 * writes bench/results/http-client-cost.json. Not a test.
 */
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import net from 'node:net';
import { availableParallelism, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { type Dispatcher, Pool } from 'undici';
import { SigningClient } from '../src/api-client/client.js';
import { exchange } from '../src/api-client/http-exchange.js';
import { percentiles, round } from './bridge/stats.js';
import { NodeChild } from './support/child-process.js';

const RESULTS = new URL('results/http-client-cost.json', import.meta.url);
const SUBJECTS = ['socket', 'undici', 'exchange', 'client'] as const;
type Subject = (typeof SUBJECTS)[number];
const PATH = '/v2/contract/notice';
const ANSWER = '{"code":0,"message":"ok","responseCode":"00000000"}';
const BODY = '{"contractId":"3107283410371870721","onlySigning":false}';
const HEADERS = {
  'content-type': 'application/json;charset=UTF-8',
  'x-svc-open-accesstoken': 'bench-app-token',
  'x-svc-open-timestamp': '1790000000000',
  'x-svc-open-signature': '0123456789abcdef0123456789abcdef',
};

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '512' },
    requests: { type: 'string', default: '40000' },
    rounds: { type: 'string', default: '5' },
    serve: { type: 'boolean', default: false },
    subject: { type: 'string' },
    url: { type: 'string' },
  },
});
const connections = Number(values.connections);
const requests = Number(values.requests);

/** What one subject measured in one process. */
interface Measured {
  readonly subject: Subject;
  readonly cpuUsPerRequest: number;
  readonly requestsPerSecond: number;
}

/** One request, resolved with the answer's body text. */
type Send = () => Promise<string>;

if (values.serve) await serve();
else if (values.subject) await measureSubject(values.subject as Subject, String(values.url));
else await main();

async function serve(): Promise<void> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, {
        'content-type': 'application/json;charset=UTF-8',
        'content-length': Buffer.byteLength(ANSWER),
      });
      response.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  console.log(`listening on http://127.0.0.1:${port}`);
}

/** A warm-up of a quarter of the requests, then the CPU of the rest. */
async function measureSubject(subject: Subject, url: string): Promise<void> {
  const sends = await senders(subject, url);
  const warmup = Math.floor(requests / 4);
  await run(sends, warmup);
  const [cpu0, t0] = [process.cpuUsage(), performance.now()];
  await run(sends, requests);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  const measured: Measured = {
    subject,
    cpuUsPerRequest: round((cpu.user + cpu.system) / requests, 1),
    requestsPerSecond: Math.round(requests / seconds),
  };
  console.log(`result ${JSON.stringify(measured)}`);
  process.exit(0);
}

/** `count` requests over the senders, each sender one request at a time. */
async function run(sends: readonly Send[], count: number): Promise<void> {
  let left = count;
  const loop = async (send: Send) => {
    while (left > 0) {
      left -= 1;
      const text = await send();
      if (!text.includes('"code":0')) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(sends.map(loop));
}

async function senders(subject: Subject, url: string): Promise<Send[]> {
  const times = <T>(make: () => T) => Array.from({ length: connections }, make);
  if (subject === 'socket') {
    const { hostname, port } = new URL(url);
    return Promise.all(times(() => socketSender(hostname, Number(port))));
  }
  if (subject === 'client') {
    const client = new SigningClient({
      baseUrl: url,
      appToken: 'bench-app-token',
      appSecret: 'bench-app-secret',
      requestsPerSecond: 0,
      maxConcurrentRequests: connections,
    });
    // The client checks the answer itself: anything but a success rejects.
    const send = () =>
      client
        .remindSignatories({ contractId: '3107283410371870721', onlySigning: false })
        .then(() => '"code":0');
    return times(() => send);
  }
  const pool = new Pool(url, { connections });
  const request = { origin: url, path: PATH, headers: HEADERS, body: BODY };
  const bounded = { ...request, maxResponseBytes: 1 << 20 };
  // A dispatch's options made per request, as exchange makes them.
  const send: Send =
    subject === 'exchange'
      ? () => exchange(pool, bounded).then((answer) => answer.body)
      : () => undiciSend(pool, { ...request, method: 'POST' });
  return times(() => send);
}

function undiciSend(pool: Pool, options: Dispatcher.DispatchOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    pool.dispatch(options, {
      onConnect() {},
      onHeaders: () => true,
      onData(chunk: Buffer) {
        chunks.push(chunk);
        return true;
      },
      onComplete: () => resolve(Buffer.concat(chunks).toString('utf8')),
      onError: reject,
    });
  });
}

/** One keep-alive socket; the next request is written only once the answer is whole. */
async function socketSender(host: string, port: number): Promise<Send> {
  const socket = net.connect(port, host);
  socket.setNoDelay(true);
  await once(socket, 'connect');
  const head =
    `POST ${PATH} HTTP/1.1\r\nhost: ${host}:${port}\r\n` +
    Object.entries(HEADERS)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    `content-length: ${Buffer.byteLength(BODY)}\r\n\r\n`;
  let pending: Buffer | undefined;
  let answered: ((text: string) => void) | undefined;
  socket.on('data', (data: Buffer) => {
    pending = pending ? Buffer.concat([pending, data]) : data;
    const end = pending.indexOf('\r\n\r\n');
    if (end < 0) return;
    const length = Number(/content-length: *(\d+)/i.exec(pending.toString('latin1', 0, end))?.[1]);
    if (pending.length < end + 4 + length) return;
    const text = pending.toString('utf8', end + 4, end + 4 + length);
    pending = undefined;
    answered?.(text);
  });
  return () =>
    new Promise((resolve) => {
      answered = resolve;
      socket.write(head + BODY);
    });
}

async function main(): Promise<void> {
  const server = new NodeChild({ name: 'server', args: ['bench/http-client-cost.ts', '--serve'] });
  try {
    const [, url = ''] = await server.waitForLine(/listening on (http:\/\/\S+)/, 60_000);
    const runs: Measured[] = [];
    for (let round = 1; round <= Number(values.rounds); round += 1) {
      for (const subject of SUBJECTS) runs.push(await measureInChild(subject, url));
    }
    const summary = summarise(runs);
    printTable(summary);
    await writeFile(RESULTS, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(`\nwritten to ${RESULTS.pathname}`);
  } finally {
    await server.stop();
  }
}

async function measureInChild(subject: Subject, url: string): Promise<Measured> {
  const child = new NodeChild({
    name: subject,
    args: ['bench/http-client-cost.ts', '--subject', subject, '--url', url, ...passedOn()],
  });
  try {
    const [, json = ''] = await child.waitForLine(/^result (.*)$/, 600_000);
    return JSON.parse(json) as Measured;
  } finally {
    await child.stop();
  }
}

function passedOn(): string[] {
  return ['--connections', String(connections), '--requests', String(requests)];
}

function summarise(runs: readonly Measured[]) {
  const bySubject = Object.fromEntries(
    SUBJECTS.map((subject) => {
      const mine = runs.filter((r) => r.subject === subject);
      return [
        subject,
        {
          cpuUsPerRequest: mine.map((r) => r.cpuUsPerRequest),
          medianCpuUsPerRequest: percentiles(mine.map((r) => r.cpuUsPerRequest)).p50,
          requestsPerSecond: mine.map((r) => r.requestsPerSecond),
        },
      ];
    }),
  ) as Record<
    Subject,
    { cpuUsPerRequest: number[]; medianCpuUsPerRequest: number; requestsPerSecond: number[] }
  >;
  return {
    date: new Date().toISOString(),
    machine: { cpus: availableParallelism(), model: cpus()[0]?.model, node: process.version },
    settings: { connections, requests, rounds: Number(values.rounds) },
    subjects: bySubject,
  };
}

function printTable(summary: ReturnType<typeof summarise>): void {
  const floor = summary.subjects.socket.medianCpuUsPerRequest;
  console.log(
    `\nCPU per request, ${connections} connections, ${requests} requests a run (median of ${summary.settings.rounds})\n`,
  );
  console.log(
    `${'subject'.padEnd(10)}${'µs CPU'.padStart(8)}${'above socket'.padStart(14)}  ${'each run (µs)'.padEnd(34)}requests/s`,
  );
  for (const subject of SUBJECTS) {
    const s = summary.subjects[subject];
    const above = round(s.medianCpuUsPerRequest - floor, 1);
    console.log(
      `${subject.padEnd(10)}${String(s.medianCpuUsPerRequest).padStart(8)}${String(above).padStart(14)}  ${s.cpuUsPerRequest.join(', ').padEnd(34)}${s.requestsPerSecond.join(', ')}`,
    );
  }
}
