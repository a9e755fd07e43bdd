/**
 * The functions with the most self time in a V8 CPU profile (as `node --cpu-prof` writes it,
 * e.g. `npm run bench -- --cpu-prof`): `tsx bench/profile-top.ts <file.cpuprofile> [--top N]
 * [--areas] [--commands N] [--markdown]`; or a sampling heap profile (`.heapprofile`, as
 * `npm run bench -- --heap-sample` writes it): bytes allocated where a CPU profile has self time.
 * Self time is attributed from the profile's samples;
 * functions are keyed by name and location, or with --areas by the areas of the bridge's work
 * that AREAS names (kafkajs decode/encode, JSON, zod, the guards, logging, metrics, tracing,
 * undici, the scheduler, GC, idle, ...), then by package (node_modules/<name>), src folder, or
 * node itself. With --areas a second column charges the self time of node's internals and V8's
 * builtins (streams, sockets, timers, writev, microtasks) to the nearest JS caller's area: what
 * that area costs with the runtime work it asks for (the runtime rows keep what has no JS caller:
 * I/O callbacks). --commands N adds ms per 1,000 commands; --markdown prints a table.
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT } from './support/child-process.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A sampling heap profile (`.heapprofile`): a tree of allocation sites, bytes per site. */
interface HeapNode {
  readonly id: number;
  readonly callFrame: ProfileNode['callFrame'];
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}

/** Either profile as nodes and an amount per sample: ms of CPU, or bytes allocated. */
interface Weighted {
  readonly nodes: readonly ProfileNode[];
  readonly weights: ReadonlyArray<readonly [id: number, amount: number]>;
  readonly unit: 'ms' | 'bytes';
}

function weighted(json: Profile | { readonly head: HeapNode }): Weighted {
  if ('head' in json) {
    const nodes: ProfileNode[] = [];
    const weights: Array<[number, number]> = [];
    const walk = (node: HeapNode) => {
      nodes.push({
        id: node.id,
        callFrame: node.callFrame,
        children: node.children.map((c) => c.id),
      });
      if (node.selfSize > 0) weights.push([node.id, node.selfSize]);
      for (const child of node.children) walk(child);
    };
    walk(json.head);
    return { nodes, weights, unit: 'bytes' };
  }
  const weights = json.samples.map((id, i) => [id, (json.timeDeltas[i] ?? 0) / 1000] as const);
  return { nodes: json.nodes, weights, unit: 'ms' };
}

/** A frame as the classifier sees it: its name, its file relative to the repository, its caller. */
interface Frame {
  readonly name: string;
  /** `src/...`, `node_modules/...`, `node:...`, `wasm://...`, or '' for V8's own and builtins. */
  readonly file: string;
  readonly parent: Frame | undefined;
}

function fileOf({ callFrame: f }: ProfileNode): string {
  return f.url.startsWith('file://') ? relative(ROOT, fileURLToPath(f.url)) : f.url;
}

/** The source a frame's file was compiled from: the benchmark runs .tmp/bench-build/src/... */
function sourceOf(node: ProfileNode): string {
  return fileOf(node)
    .replace(/^\.tmp\/bench-build\//, '')
    .replace(/^(src\/.*)\.js$/, '$1.ts');
}

function where(node: ProfileNode): string {
  const file = fileOf(node);
  const name = node.callFrame.functionName || '(anonymous)';
  return file ? `${name}  ${file}:${node.callFrame.lineNumber + 1}` : name;
}

const NODE_INTERNALS = '(node internals: streams, sockets, timers, ...)';
const BUILTINS = '(V8 builtins and syscalls: writev, microtasks, ...)';
/** Areas whose self time the second column charges to the caller. */
const RUNTIME = new Set([NODE_INTERNALS, BUILTINS]);

const inPackages = (file: string, packages: readonly string[]) =>
  packages.some((name) => file.includes(`node_modules/${name}/`));
const inFiles = (file: string, files: readonly string[]) =>
  files.some((path) => file === `src/${path}.ts`);

/** Loading and compiling modules at start: not the work of any command. */
const STARTUP_NATIVES = new Set([
  'compileFunction',
  'compileFunctionForCJSLoader',
  'readFileUtf8',
  'internalModuleStat',
  'internalModuleReadJSON',
  'ModuleWrap',
  'link',
  'instantiate',
  'evaluate',
  'getModuleRequests',
]);

/**
 * The areas of the bridge's work, first match wins. JSON.parse and JSON.stringify are V8
 * builtins the profiler books to the function that calls them, so "JSON" counts the functions
 * that do nothing else (the platform's JSON text, the command's parse): a lower bound.
 */
const AREAS: ReadonlyArray<readonly [string, (frame: Frame) => boolean]> = [
  ['GC', (f) => f.name === '(garbage collector)'],
  ['idle', (f) => f.name === '(idle)'],
  [
    'start-up: loading and compiling modules',
    (f) =>
      /^node:internal\/(modules|bootstrap)\//.test(f.file) ||
      (f.file === '' && STARTUP_NATIVES.has(f.name)),
  ],
  [
    'kafkajs decode/encode (protocol)',
    (f) => f.file.includes('node_modules/kafkajs/src/protocol/'),
  ],
  ['kafkajs: network, consumer, producer', (f) => inPackages(f.file, ['kafkajs'])],
  [
    'JSON (parse/stringify of commands and platform answers)',
    (f) =>
      inFiles(f.file, ['schemas/platform/json-text']) ||
      (inFiles(f.file, ['consumers/command-decoding']) && f.name === 'parseJson'),
  ],
  ['zod', (f) => inPackages(f.file, ['zod'])],
  [
    'guards: record limits, json-shape, header guard',
    (f) =>
      inFiles(f.file, ['consumers/record-limits', 'consumers/json-shape', 'kafka/header-guard']) ||
      // headerStats sizes a fetched record's headers for the limits, and an outgoing one's.
      (inFiles(f.file, ['kafka/record-size']) &&
        f.parent !== undefined &&
        inFiles(f.parent.file, ['consumers/record-limits'])),
  ],
  [
    'logging: pino, @pinojs/redact',
    (f) =>
      inPackages(f.file, [
        'pino',
        '@pinojs/redact',
        'sonic-boom',
        'quick-format-unescaped',
        'safe-stable-stringify',
        'pino-std-serializers',
        'thread-stream',
        'on-exit-leak-free',
        'atomic-sleep',
      ]) ||
      inFiles(f.file, ['observability/logger', 'observability/command-log', 'kafka/log-adapter']),
  ],
  [
    'metrics: prom-client',
    (f) =>
      inPackages(f.file, ['prom-client', 'tdigest', 'bintrees']) ||
      inFiles(f.file, [
        'observability/metrics',
        'observability/budget-metrics',
        'observability/kafka-metrics',
        'observability/platform-answers',
        'observability/call-outcome',
        'observability/health-server',
      ]),
  ],
  [
    'tracing (off)',
    (f) =>
      f.file.includes('node_modules/@opentelemetry/') ||
      inFiles(f.file, [
        'observability/tracing',
        'observability/tracing-sdk',
        'observability/command-span',
        'api-client/call-span',
      ]),
  ],
  // wasm: undici's HTTP parser (llhttp) is WebAssembly.
  ['undici', (f) => inPackages(f.file, ['undici']) || f.file.startsWith('wasm://')],
  [
    'scheduler: src/consumers key-scheduler, intake',
    (f) => inFiles(f.file, ['consumers/key-scheduler', 'consumers/intake']),
  ],
  ['(program: V8 compiling, ICs, ...)', (f) => f.name === '(program)'],
];

/** The area of one frame: a named one, else its package, src folder, or node itself. */
function area(frame: Frame): string {
  for (const [name, matches] of AREAS) if (matches(frame)) return name;
  const { file } = frame;
  if (!file) return frame.name.startsWith('(') ? frame.name : BUILTINS;
  if (file.startsWith('node:')) return NODE_INTERNALS;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
  if (pkg) return `package ${pkg}`;
  const folder = /^src\/([^/]+)\//.exec(file)?.[1];
  return folder ? `src/${folder} (rest)` : file;
}

interface Tally {
  readonly self: Map<string, number>;
  /** Self time with node internals and builtins charged to their nearest JS caller's area. */
  readonly charged: Map<string, number>;
  readonly totalMs: number;
}

function selfTimes(
  profile: Weighted,
  key: (node: ProfileNode, frame: Frame | undefined) => string,
): Tally {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parentOf.set(child, node.id);
  const frames = new Map<number, Frame>();
  const frameOf = (id: number | undefined): Frame | undefined => {
    const node = id === undefined ? undefined : nodes.get(id);
    if (!node || node.callFrame.functionName === '(root)') return undefined;
    let frame = frames.get(id as number);
    if (!frame) {
      frame = { name: node.callFrame.functionName, file: sourceOf(node), parent: undefined };
      // Parents are made on demand: the chain is walked only for runtime frames.
      Object.defineProperty(frame, 'parent', { get: () => frameOf(parentOf.get(node.id)) });
      frames.set(id as number, frame);
    }
    return frame;
  };
  const self = new Map<string, number>();
  const charged = new Map<string, number>();
  const add = (map: Map<string, number>, name: string, ms: number) =>
    map.set(name, (map.get(name) ?? 0) + ms);
  const areaCache = new Map<number, [string, string]>();
  let totalMs = 0;
  for (const [id, ms] of profile.weights) {
    const node = nodes.get(id);
    if (!node) continue;
    totalMs += ms;
    let keys = areaCache.get(id);
    if (!keys) {
      const own = key(node, frameOf(id));
      let charge = own;
      if (RUNTIME.has(own)) {
        for (let caller = frameOf(id)?.parent; caller; caller = caller.parent) {
          const callerArea = area(caller);
          if (!RUNTIME.has(callerArea)) {
            charge = callerArea;
            break;
          }
        }
      }
      keys = [own, charge];
      areaCache.set(id, keys);
    }
    add(self, keys[0], ms);
    add(charged, keys[1], ms);
  }
  return { self, charged, totalMs };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    areas: { type: 'boolean', default: false },
    commands: { type: 'string' },
    markdown: { type: 'boolean', default: false },
  },
});
const commands = values.commands === undefined ? undefined : Number(values.commands);
const pct = (amount: number, total: number) => `${((amount * 100) / total).toFixed(1)}%`;

for (const file of positionals) {
  const profile = weighted(JSON.parse(await readFile(file, 'utf8')));
  const bytes = profile.unit === 'bytes';
  // CPU: ms, and ms per 1,000 commands; heap: MB allocated, and KB per command.
  const amount = (n: number) => (bytes ? `${(n / 2 ** 20).toFixed(1)} MB` : `${n.toFixed(0)} ms`);
  const per = (n: number) =>
    commands === undefined
      ? undefined
      : bytes
        ? `${(n / 1024 / commands).toFixed(1)} KB/command`
        : `${((n * 1000) / commands).toFixed(1)} ms/1k`;
  const classify = values.areas
    ? (node: ProfileNode, frame: Frame | undefined) =>
        frame ? area(frame) : node.callFrame.functionName
    : (node: ProfileNode) => where(node);
  const { self, charged, totalMs } = selfTimes(profile, classify);
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  const what = bytes ? 'allocated (sampled)' : 'sampled';
  process.stdout.write(`${file}: ${amount(totalMs)} ${what}\n`);
  if (values.markdown && values.areas) {
    const perHeader = commands ? (bytes ? ' | per command' : ' | per 1,000 commands') : '';
    const ownHeader = bytes ? 'allocated' : 'self time';
    process.stdout.write(`| area | ${ownHeader} | with node/V8 work it calls${perHeader} |\n`);
    process.stdout.write(`|---|---|---${commands ? '|---' : ''}|\n`);
    for (const [name, n] of top) {
      const tail = commands ? ` | ${per(n)}` : '';
      process.stdout.write(
        `| ${name} | ${pct(n, totalMs)} | ${pct(charged.get(name) ?? 0, totalMs)}${tail} |\n`,
      );
    }
    continue;
  }
  for (const [name, n] of top) {
    const extra = values.areas ? `  ${pct(charged.get(name) ?? 0, totalMs).padStart(6)}` : '';
    const perText = per(n);
    process.stdout.write(
      `  ${pct(n, totalMs).padStart(6)}${extra}  ${amount(n).padStart(10)}${perText ? `  ${perText.padStart(16)}` : ''}  ${name}\n`,
    );
  }
}
