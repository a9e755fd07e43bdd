/**
 * How fast the console answers "what happened to this contract?" with a million events on the
 * events topic, and how much memory it takes doing so (issue 33): the console as deployed
 * (`signing-bridge console` compiled, run by plain node with the chart's NODE_OPTIONS), asked
 * for bizIds' stories over HTTP one after the other, its resident memory read from /proc all
 * along. Beside it, in the same run and on the same topics, the two ways to answer without it:
 *
 * - `history`: what `signing-bridge history <bizId>` reads (the bizId's partition of every topic,
 *   through kafkajs: a consumer of its own, every record decoded);
 * - `full scan`: every partition of every topic, read through kafkajs and filtered by key, as a
 *   generic Kafka UI searches by key.
 *
 * The data: `--biz-ids` contracts, each a create-contract (its draft, document and ending: three
 * events) and reminders (one event each), so that `--events` events are on the events topic,
 * each bizId's records spread over its partitions as a day of traffic would spread them; twelve
 * partitions, the topics' default.
 *
 * `npm run bench:console -- [--events N] [--biz-ids N] [--samples N] [--baseline-samples N]`;
 * KAFKA_BROKERS, or a local broker of its own. Prints a table, writes
 * bench/results/console-story.json. Not a test.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { startLocalKafka } from '../scripts/local-kafka/broker.js';
import { HistoryBook } from '../src/cli/ops/history-book.js';
import {
  createKafkaConnection,
  type KafkajsConnection,
  keyPartition,
  type OutboundRecord,
} from '../src/kafka/index.js';
import { encodeEvent } from '../src/producers/cloud-events.js';
import { type TopicNames, topicNames } from '../src/schemas/messages/index.js';
import { subjectEntries } from './bridge/build.js';
import { createTopics, PARTITIONS } from './bridge/kafka-io.js';
import { percentiles, round } from './bridge/stats.js';
import { NodeChild } from './support/child-process.js';
import { memory } from './support/proc-stats.js';

const RESULTS = new URL('results/console-story.json', import.meta.url);
/** The chart's console.nodeOptions: the console is measured as it is deployed. */
const CHART_NODE_OPTIONS = '--max-old-space-size=64 --max-semi-space-size=1';
const TOKEN = randomUUID().replaceAll('-', '');
const TARGET_MS = 1_000;
const RSS_TARGET_MB = 100;

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    'biz-ids': { type: 'string', default: '100000' },
    samples: { type: 'string', default: '40' },
    'baseline-samples': { type: 'string', default: '3' },
    'node-options': { type: 'string', default: CHART_NODE_OPTIONS },
  },
});
const CONSOLE_NODE_OPTIONS = String(values['node-options']);
/** More of the console's environment, `NAME=value,...` (malloc's tuning, say). */
const CONSOLE_ENV: Record<string, string> = Object.fromEntries(
  (process.env.BENCH_CONSOLE_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=') as [string, string]),
);
const events = Number(values.events);
const bizIds = Number(values['biz-ids']);
const remindersPerBizId = Math.max(0, Math.round(events / bizIds) - 3);

const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const closers: Array<() => Promise<unknown>> = [];

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  progress('compiling the console');
  const entries = await subjectEntries(false);
  const brokers = await broker();
  const prefix = `bench-console-${randomUUID().slice(0, 8)}.`;
  const topics = topicNames(prefix);
  const kafka = createKafkaConnection({
    brokers,
    clientId: 'bench',
    log: pino({ level: 'fatal' }, pino.destination(2)),
    topicLayout: { partitions: PARTITIONS },
  });
  await createTopics(kafka, topics);
  const written = await writeStories(kafka, topics);
  const sample = Array.from({ length: Number(values.samples) }, (_, i) =>
    bizIdOf(Math.floor(((i + 0.5) * bizIds) / Number(values.samples))),
  );

  const consoleRun = await startConsole(entries.bridge, brokers, prefix);
  const rss = sampleRss(consoleRun.pid);
  const story = await timeStories(consoleRun.url, sample);
  const rssMb = await rss.stop();

  progress('the baselines: history (its partitions through kafkajs), then a full scan');
  const baselineSample = sample.slice(0, Number(values['baseline-samples']));
  const history = await timeReads(kafka, topics, baselineSample, 'partition');
  const fullScan = await timeReads(kafka, topics, baselineSample, 'all');
  await consoleRun.child.stop();
  const results = {
    at: new Date().toISOString(),
    machine: { loadAtStart, loadAtEnd: loadavg() },
    data: { ...written, partitions: PARTITIONS, bizIds, remindersPerBizId },
    console: { nodeOptions: CONSOLE_NODE_OPTIONS, story, rssMb },
    baselines: { history, fullScan },
    verdicts: {
      storyWithin1s: story.ms.p99 <= TARGET_MS,
      rssUnder100Mb: rssMb.peak < RSS_TARGET_MB,
    },
  };
  await writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  print(results);
}

/** KAFKA_BROKERS, or a local broker of our own. */
async function broker(): Promise<string[]> {
  const given = process.env.KAFKA_BROKERS;
  if (given) return given.split(',');
  progress('starting a local Kafka broker');
  const local = await startLocalKafka({ heapMb: 1024 });
  closers.push(() => local.stop());
  return local.brokers;
}

function bizIdOf(n: number): string {
  return `order-${String(n).padStart(7, '0')}`;
}

/**
 * Every contract's create-contract first, then its reminders, the contracts interleaved: a
 * bizId's records are spread over its partitions, as traffic spreads them over a day.
 */
async function writeStories(kafka: KafkajsConnection, topics: TopicNames) {
  const producer = await kafka.positionedProducer();
  closers.push(() => producer.disconnect());
  const started = performance.now();
  let eventCount = 0;
  let commandCount = 0;
  let batch: OutboundRecord[] = [];
  // One send at a time: the idempotent producer refuses its own requests out of order.
  const flush = async () => {
    if (batch.length > 0) await producer.send(batch);
    batch = [];
  };
  for (let round = -1; round < remindersPerBizId; round++) {
    for (let n = 0; n < bizIds; n++) {
      const records = round < 0 ? created(topics, bizIdOf(n)) : reminded(topics, bizIdOf(n), round);
      batch.push(...records);
      commandCount++;
      eventCount += records.length - 1;
      if (batch.length >= 10_000) await flush();
    }
    progress(
      `written ${eventCount.toLocaleString('en')} events, ${commandCount.toLocaleString('en')} commands`,
    );
  }
  await flush();
  return {
    events: eventCount,
    commands: commandCount,
    writeSeconds: round((performance.now() - started) / 1000),
  };
}

function created(topics: TopicNames, bizId: string): OutboundRecord[] {
  const commandId = `${bizId}-create`;
  const data = {
    commandId,
    bizId,
    commandType: 'create-contract' as const,
    contractId: '3141592653589793239',
  };
  const address = (ended = false) => ({
    topic: topics.events,
    source: 'signing-bridge',
    bizId,
    commandId,
    ended: ended
      ? { topic: topics.commands['create-contract'], partition: 0, offset: '0' }
      : undefined,
  });
  const command = {
    commandId,
    bizId,
    payload: { contract: { subject: `Supply agreement ${bizId}` }, documents: [] },
  };
  return [
    { topic: topics.commands['create-contract'], key: bizId, value: JSON.stringify(command) },
    encodeEvent(
      {
        type: 'signingbridge.draft.created',
        step: 'draft',
        data: { ...data, status: 'DRAFT', signatories: [] },
      },
      address(),
    ),
    encodeEvent(
      {
        type: 'signingbridge.document.added',
        step: 'document:0',
        data: { ...data, documentId: '3141592653589793243', title: 'Supply agreement', index: 0 },
      },
      address(),
    ),
    encodeEvent(
      {
        type: 'signingbridge.contract.created',
        step: 'created',
        data: { ...data, documentIds: ['3141592653589793243'], initiated: true, reconciled: false },
      },
      address(true),
    ),
  ];
}

function reminded(topics: TopicNames, bizId: string, n: number): OutboundRecord[] {
  const commandId = `${bizId}-remind-${n}`;
  const command = { commandId, bizId, payload: { onlySigning: true } };
  const data = {
    commandId,
    bizId,
    commandType: 'remind' as const,
    contractId: '3141592653589793239',
    onlySigning: true,
  };
  const ended = { topic: topics.commands.remind, partition: 0, offset: String(n) };
  return [
    { topic: topics.commands.remind, key: bizId, value: JSON.stringify(command) },
    encodeEvent(
      { type: 'signingbridge.reminder.sent', step: 'remind', data },
      { topic: topics.events, source: 'signing-bridge', bizId, commandId, ended },
    ),
  ];
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

async function startConsole(entry: string, brokers: string[], prefix: string) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-console-'));
  const tokens = join(dir, 'tokens');
  await writeFile(tokens, `viewer bench ${TOKEN}\n`);
  const port = await freePort();
  const child = new NodeChild({
    name: 'console',
    args: [entry, 'console'],
    tsx: false,
    env: {
      ...CONSOLE_ENV,
      NODE_OPTIONS: CONSOLE_NODE_OPTIONS,
      KAFKA_BROKERS: brokers.join(','),
      TOPIC_PREFIX: prefix,
      CONSOLE_AUTH: 'token',
      CONSOLE_TOKENS_FILE: tokens,
      CONSOLE_HOST: '127.0.0.1',
      CONSOLE_PORT: String(port),
    },
  });
  closers.push(() => child.stop());
  await child.waitForLine(/"msg":"console listening"/, 30_000);
  return { child, pid: child.pid, url: `http://127.0.0.1:${port}` };
}

/** VmRSS every 50 ms until stopped: the highest and the last, in MB (and the kernel's VmHWM). */
function sampleRss(pid: number) {
  let peak = 0;
  let last = 0;
  const timer = setInterval(() => {
    void memory(pid).then((now) => {
      if (!now) return;
      last = now.rssMb;
      peak = Math.max(peak, now.rssMb);
    });
  }, 50);
  return {
    async stop() {
      clearInterval(timer);
      const now = await memory(pid);
      return { peak: round(Math.max(peak, now?.peakMb ?? 0)), end: round(now?.rssMb ?? last) };
    },
  };
}

/** Each bizId's story page, one after the other (three first to warm up, not counted). */
async function timeStories(url: string, sample: readonly string[]) {
  const ask = async (bizId: string) => {
    const started = performance.now();
    const response = await fetch(`${url}/contract?bizId=${encodeURIComponent(bizId)}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const page = await response.text();
    const ms = performance.now() - started;
    const commands = page.match(/<section class="command"/g)?.length ?? 0;
    const read = [...page.matchAll(/<td class="num">(\d+)<\/td><td>/g)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    if (response.status !== 200 || commands !== remindersPerBizId + 1) {
      throw new Error(
        `the story of ${bizId}: ${response.status}, ${commands} commands (expected ${remindersPerBizId + 1})`,
      );
    }
    return { ms, read };
  };
  progress(`the console: ${sample.length} stories`);
  for (const bizId of sample.slice(0, 3)) await ask(bizId);
  const answers = [];
  for (const bizId of sample) answers.push(await ask(bizId));
  return {
    samples: answers.length,
    ms: percentiles(answers.map((a) => a.ms)),
    recordsRead: Math.round(answers.reduce((sum, a) => sum + a.read, 0) / answers.length),
  };
}

/**
 * The ways without the console, through kafkajs: `partition` reads what `history` reads (the
 * bizId's partition of every topic), `all` every partition of every topic; both filter by key.
 */
async function timeReads(
  kafka: KafkajsConnection,
  topics: TopicNames,
  sample: readonly string[],
  which: 'partition' | 'all',
) {
  const names = [...Object.values(topics.commands), topics.events, topics.deadLetter];
  const times: number[] = [];
  let read = 0;
  for (const bizId of sample) {
    const started = performance.now();
    const book = new HistoryBook(bizId, topics);
    const only =
      which === 'partition'
        ? new Map(names.map((topic) => [topic, [keyPartition(Buffer.from(bizId), PARTITIONS)]]))
        : undefined;
    const reader = kafka.reader({ topics: names, start: 'beginning', only, toEnd: true });
    let records = 0;
    await reader.start((batch) => {
      records += batch.length;
      for (const record of batch) book.add(record);
    });
    await reader.done;
    times.push(performance.now() - started);
    read = records;
    if (book.outcomes().length !== remindersPerBizId + 1)
      throw new Error(`${which}: ${bizId}'s story incomplete`);
    progress(
      `${which === 'all' ? 'full scan' : 'history'} of ${bizId}: ${Math.round(times.at(-1) ?? 0)} ms, ${records} records`,
    );
  }
  return { samples: times.length, ms: percentiles(times), recordsRead: read };
}

function print(r: {
  data: { events: number; commands: number; writeSeconds: number };
  console: {
    story: { samples: number; ms: { p50: number; p99: number; max: number }; recordsRead: number };
    rssMb: { peak: number; end: number };
  };
  baselines: Record<
    'history' | 'fullScan',
    { samples: number; ms: { p50: number; p99: number; max: number }; recordsRead: number }
  >;
  verdicts: { storyWithin1s: boolean; rssUnder100Mb: boolean };
}): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const n = (value: number) => Math.round(value).toLocaleString('en');
  out();
  out(
    `A contract's story with ${n(r.data.events)} events and ${n(r.data.commands)} commands on ${PARTITIONS} partitions (written in ${r.data.writeSeconds} s)`,
  );
  const rows: string[][] = [
    ['', 'samples', 'p50 ms', 'p99 ms', 'max ms', 'records read', 'vs console p50'],
    ...(
      [
        ['console', r.console.story],
        ['history (kafkajs, its partitions)', r.baselines.history],
        ['full scan (kafkajs, every partition)', r.baselines.fullScan],
      ] as const
    ).map(([name, m]) => [
      name,
      String(m.samples),
      n(m.ms.p50),
      n(m.ms.p99),
      n(m.ms.max),
      n(m.recordsRead),
      `${(m.ms.p50 / Math.max(r.console.story.ms.p50, 1e-9)).toFixed(1)}x`,
    ]),
  ];
  const widths =
    rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  for (const row of rows)
    out(
      `  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('   ')}`,
    );
  out();
  out(
    `  console resident memory: peak ${r.console.rssMb.peak} MB, at the end ${r.console.rssMb.end} MB`,
  );
  out(
    `  ${r.verdicts.storyWithin1s ? 'PASS' : 'FAIL'}  a story answers within ${TARGET_MS} ms (p99 ${n(r.console.story.ms.p99)} ms)`,
  );
  out(
    `  ${r.verdicts.rssUnder100Mb ? 'PASS' : 'FAIL'}  the console stays under ${RSS_TARGET_MB} MB resident (peak ${r.console.rssMb.peak} MB)`,
  );
}

try {
  await main();
} finally {
  for (let close = closers.pop(); close; close = closers.pop()) {
    await close().catch((error: unknown) => progress(`closing failed: ${error}`));
  }
}
