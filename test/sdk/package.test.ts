/**
 * The package as another project gets it: packed (`npm pack`, which builds it), installed by name
 * in a project of its own, the SDK example compiled there with TypeScript against the published
 * declarations and run against the real broker and a bridge; code with a wrong field does not
 * compile. And the SDK leaves its host's own kafkajs as the registry made it, on every Node
 * version it supports: the project's declared patch of kafkajs (patches/) is applied to the
 * project's own install only.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useEndToEnd } from '../e2e/support/e2e.js';
import { nodeTool } from '../support/tools.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const e2e = useEndToEnd();
let project: string;
let pristineKafkajs: string;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    outDir: 'dist',
  },
};

/** Uses the SDK wrongly; each line must be a compile error (TS2322: wrong type, TS2561: unknown field). */
const WRONG = `import { CommandProducer } from 'signing-bridge';
declare const producer: CommandProducer;
await producer.send('approve', { bizId: 'b', payload: { pass: 'yes' } });
await producer.send('remind', { bizid: 'b', payload: {} });
`;

async function npm(args: string[], cwd: string) {
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
  });
}

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'signing-bridge-package-'));
  const { stdout } = await npm(['pack', '--json', '--pack-destination', project], ROOT);
  // The report follows what its prepare and prepack scripts print.
  const report = stdout.slice(stdout.search(/^\[$/m));
  const [{ filename }] = JSON.parse(report) as [{ filename: string }];
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({ ...TSCONFIG, files: ['send-and-wait.ts'] }),
  );
  // From npm's cache when `npm ci` filled it; @types/node for the example's process.env.
  const typesNode = `@types/node@${manifest.devDependencies['@types/node']}`;
  await npm(['install', '--prefer-offline', join(project, filename), typesNode], project);
  await copyFile(join(ROOT, 'examples/sdk-send-and-wait.ts'), join(project, 'send-and-wait.ts'));
  await copyFile(join(ROOT, 'test/sdk/support/host-probe.mjs'), join(project, 'host-probe.mjs'));
  // kafkajs as the registry has it, at the version the package pins.
  pristineKafkajs = join(project, 'pristine');
  await mkdir(pristineKafkajs);
  const kafkajs = `kafkajs@${manifest.dependencies.kafkajs}`;
  const packed = await npm(
    ['pack', '--json', '--pack-destination', pristineKafkajs, kafkajs],
    project,
  );
  const [{ filename: tarball }] = JSON.parse(packed.stdout) as [{ filename: string }];
  await run('tar', ['-xzf', tarball], { cwd: pristineKafkajs });
}, 300_000);
afterAll(() => (project ? rm(project, { recursive: true, force: true }) : undefined));

describe('the packed package, installed by name', () => {
  it('when the example is compiled against it and run, then it sends a command and prints the event it ended with', async () => {
    await run(process.execPath, [TSC, '-p', project], { cwd: project });
    const prefix = e2e.topics.events.slice(0, -'events'.length);
    const { stdout } = await run(process.execPath, ['dist/send-and-wait.js'], {
      cwd: project,
      env: { ...process.env, KAFKA_BROKERS: inject('kafkaBrokers'), TOPIC_PREFIX: prefix },
      timeout: 90_000,
    });
    expect(stdout).toMatch(
      new RegExp(`^sent \\S+ to ${prefix}commands.create-contract, partition \\d+, offset \\d+\\n`),
    );
    expect(stdout).toMatch(/contract \S+ created \(initiated: false\)/);
    const last = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(last).toMatchObject({
      type: 'signingbridge.contract.created',
      data: { commandType: 'create-contract' },
    });
  }, 180_000);

  it('when code passes a wrong field or type, then it does not compile, naming them', async () => {
    await writeFile(join(project, 'wrong.ts'), WRONG);
    await writeFile(
      join(project, 'tsconfig.wrong.json'),
      JSON.stringify({ ...TSCONFIG, files: ['wrong.ts'] }),
    );
    const failed = await run(
      process.execPath,
      [TSC, '-p', join(project, 'tsconfig.wrong.json'), '--noEmit'],
      { cwd: project },
    ).then(
      () => undefined,
      (error: { stdout: string }) => error.stdout,
    );
    expect(failed).toMatch(
      /wrong\.ts\(3,\d+\): error TS2322: Type 'string' is not assignable to type 'boolean'/,
    );
    expect(failed).toMatch(/wrong\.ts\(4,\d+\): error TS2561: .*'bizid' does not exist/);
  }, 60_000);

  it('when the client entry is imported on its own, then SigningClient and its errors are there', async () => {
    const script = `import * as client from 'signing-bridge/client';
console.log(JSON.stringify(['SigningClient', 'PlatformRejected', 'OutcomeUnknown', 'RequestNotSent'].map((n) => typeof client[n])));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
    });
    expect(JSON.parse(stdout)).toEqual(['function', 'function', 'function', 'function']);
  });
});

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

interface ProbeReport {
  node: string;
  outcome: string;
  files: Record<string, string>;
  modules: Array<{ path: string; sameExport: boolean; codeBefore: string; codeAfter: string }>;
}

/** The Node versions the SDK supports (package.json engines, docs/sdk.md) and where each is. */
const SUPPORTED_NODES: Array<[string, () => Promise<string>]> = [
  ["24, the project's own", async () => process.execPath],
  ['26', async () => nodeTool('26')],
];

describe('the SDK in a host service', () => {
  it.each(SUPPORTED_NODES)(
    "on Node %s: the host's own kafkajs encodes, decodes headers and sends with the registry's code before and after the SDK is imported and used",
    async (_, nodeBinary) => {
      const node = await nodeBinary();
      const prefix = e2e.topics.events.slice(0, -'events'.length);
      const { stdout } = await run(node, ['host-probe.mjs'], {
        cwd: project,
        env: { ...process.env, KAFKA_BROKERS: inject('kafkaBrokers'), TOPIC_PREFIX: prefix },
        timeout: 90_000,
      });
      const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ProbeReport;
      expect(report.node).toMatch(/^v(24|26)\./);
      expect(report.outcome).toBe('signingbridge.contract.created');
      expect(report.modules.length).toBeGreaterThan(0);
      for (const { path, sameExport, codeBefore, codeAfter } of report.modules) {
        expect({ path, sameExport, unchanged: codeBefore === codeAfter }).toEqual({
          path,
          sameExport: true,
          unchanged: true,
        });
        const inPackage = path.replace(/^kafkajs\//, '');
        expect(report.files[path], path).toBe(
          await sha256(join(pristineKafkajs, 'package', inPackage)),
        );
      }
      // The check can tell: the project's own install carries the patch, the host's does not.
      const patched = 'kafkajs/src/network/requestQueue/index.js';
      expect(report.files[patched]).not.toBe(await sha256(join(ROOT, 'node_modules', patched)));
    },
    180_000,
  );
});
