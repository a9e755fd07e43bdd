// Static checks of the Dockerfile (no Docker engine needed) and of the environment the chart
// gives the service against the service's own CONFIG table.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nodeOptionsOf } from '../../bench/support/image-node-options.js';
import { CONFIG, type Variable } from '../../src/config/index.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${repoRoot}${path}`, 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Instructions, with continuation lines joined and comments dropped, grouped by FROM. */
function parseDockerfile(text: string): Stage[] {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = pending + line;
    pending = '';
    const keyword = full.split(/\s/, 1)[0] as string;
    instructions.push({ keyword: keyword.toUpperCase(), args: full.slice(keyword.length).trim() });
  }
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [base, as, name] = instruction.args.split(/\s+/);
      stages.push({
        base: base as string,
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
      });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${instruction.keyword} before the first FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

const args = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

const stages = parseDockerfile(read('Dockerfile'));
const runtime = stages.at(-1) as Stage;
const build = stages.find((s) => s.name === 'build') as Stage;

describe('Dockerfile', () => {
  it('has a build stage and a runtime stage, the last one', () => {
    expect(build).toBeDefined();
    expect(runtime.name).toBe('runtime');
  });

  it('builds from a Node 20 image pinned to a full version, the one .nvmrc and engines allow', () => {
    const external = stages
      .map((s) => s.base)
      .filter((base) => !stages.some((s) => s.name === base));
    expect(external).toHaveLength(1);
    const match = /^node:(\d+)\.(\d+)\.(\d+)-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/.exec(
      external[0] as string,
    );
    expect(match, `${external[0]} is not node:<x.y.z>-<debian>-slim`).not.toBeNull();
    const [major, minor] = [Number(match?.[1]), Number(match?.[2])];
    expect(String(major)).toBe(read('.nvmrc').trim());
    const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };
    const [, minMajor, minMinor] = /^>=(\d+)\.(\d+)\.\d+$/.exec(engines.node) ?? [];
    expect(major === Number(minMajor) ? minor >= Number(minMinor) : major > Number(minMajor)).toBe(
      true,
    );
  });

  it('when building, installs every dependency and compiles', () => {
    const runs = args(build, 'RUN').join('\n');
    expect(runs).toMatch(/\bnpm ci\b/);
    expect(runs).not.toContain('--omit=dev');
    expect(runs).toContain('npm run build');
  });

  it('at runtime, installs production dependencies only', () => {
    const runs = args(runtime, 'RUN');
    const installs = runs.filter((r) => /\bnpm (ci|install|i)\b/.test(r));
    expect(installs).toHaveLength(1);
    expect(installs[0]).toMatch(/\bnpm ci --omit=dev\b/);
    expect(args(runtime, 'ENV')).toContain('NODE_ENV=production');
  });

  it('at runtime, limits the V8 heap in NODE_OPTIONS, which the benchmark runs the bridge with', () => {
    const env = args(runtime, 'ENV');
    expect(env).toContain('NODE_OPTIONS="--max-old-space-size=160"');
    expect(nodeOptionsOf(read('Dockerfile'))).toBe('--max-old-space-size=160');
    expect(() => nodeOptionsOf('FROM node:20\nENV NODE_ENV=production\n')).toThrow(/NODE_OPTIONS/);
  });

  it('at runtime, has the compiled code, the fixtures and the manifest, and nothing else', () => {
    const copies = args(runtime, 'COPY').sort();
    expect(copies).toEqual([
      '--from=build /app/dist ./dist',
      'fixtures ./fixtures',
      'package.json package-lock.json ./',
    ]);
    expect(existsSync(`${repoRoot}fixtures/default.json`)).toBe(true);
  });

  it('at runtime, runs as a numeric non-root user', () => {
    const users = args(runtime, 'USER');
    const last = users.at(-1) ?? 'root';
    const [uid] = last.split(':');
    // Numeric, because Kubernetes' runAsNonRoot cannot check a user name.
    expect(uid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
  });

  it('starts node on the CLI under tini, the service by default', () => {
    expect(JSON.parse(args(runtime, 'ENTRYPOINT').at(-1) ?? '[]')).toEqual([
      '/usr/bin/tini',
      '--',
      'node',
      'dist/cli/main.js',
    ]);
    expect(JSON.parse(args(runtime, 'CMD').at(-1) ?? '[]')).toEqual(['run']);
    expect(args(runtime, 'RUN').join('\n')).toMatch(/apt-get install .*\btini\b/);
  });

  it('exposes the default of HTTP_PORT, the port the chart uses', () => {
    const port = configEntry('HTTP_PORT').default;
    expect(args(runtime, 'EXPOSE')).toEqual([port]);
    const helpers = read(`${chart}/templates/_helpers.tpl`);
    expect(helpers).toContain(`{{- define "signing-bridge.httpPort" -}}\n${port}\n`);
  });

  it('lets into the build context everything the Dockerfile copies from it', () => {
    const allowed = read('.dockerignore')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).replace(/\/$/, ''));
    const fromContext = stages
      .flatMap((s) => args(s, 'COPY'))
      .filter((a) => !a.startsWith('--from'))
      .flatMap((a) => a.split(/\s+/).slice(0, -1));
    for (const path of fromContext) expect(allowed, path).toContain(path);
    expect(read('.dockerignore')).toMatch(/^\*$/m);
  });
});

// ---- the chart's environment against CONFIG ----

const chart = 'helm/signing-bridge';
const templates = readdirSync(`${repoRoot}${chart}/templates`)
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => read(`${chart}/templates/${file}`))
  .join('\n');
const schemaText = read(`${chart}/values.schema.json`);

// The Kafka TLS and SASL variables (issue 9.1) reach the chart in a change of its own; until the
// chart names one of them, that one is not asked of it. Remove this once the chart has them all.
const awaitingChart = new Set(
  CONFIG.map((variable) => variable.name as string).filter(
    (name) =>
      /^KAFKA_(TLS|SASL)/.test(name) && !templates.includes(name) && !schemaText.includes(name),
  ),
);
const rows: readonly Variable[] = CONFIG.filter((variable) => !awaitingChart.has(variable.name));

function configEntry(name: string): Variable {
  const entry = rows.find((e) => e.name === name);
  if (!entry) throw new Error(`CONFIG has no ${name}`);
  return entry;
}

const values = parse(read(`${chart}/values.yaml`)) as {
  config: Record<string, string>;
  terminationGracePeriodSeconds: number;
};
const schema = JSON.parse(schemaText) as {
  properties: { config: { properties: Record<string, unknown>; required: string[] } };
};

/** The env entries the templates write by name (the rest come from `config`). */
const literalEnv = [...templates.matchAll(/^\s*- name: ([A-Z][A-Z0-9_]*)$/gm)].map((m) => m[1]);
const secretEnv = [
  ...templates.matchAll(/secretKeyRef:\s*\n\s*name: .*\n\s*key: ([A-Z0-9_]+)/g),
].map((m) => m[1]);

describe('the chart against CONFIG', () => {
  const known = new Set(rows.map((e) => e.name));
  // A variable without a default is required (src/config/variable.ts).
  const required = rows.filter((e) => e.default === undefined);

  it('sets no variable the service does not know', () => {
    const set = [
      // Node's own, from the chart's nodeOptions.
      ...literalEnv.filter((name) => name !== 'NODE_OPTIONS'),
      ...Object.keys(values.config),
      ...Object.keys(schema.properties.config.properties),
    ];
    expect(set.filter((name) => !known.has(name as string))).toEqual([]);
  });

  it('accepts in `config` every non-secret variable except HTTP_PORT, which it sets itself', () => {
    const expected = rows
      .filter((e) => !e.secret && e.name !== 'HTTP_PORT')
      .map((e) => e.name)
      .sort();
    expect(Object.keys(schema.properties.config.properties).sort()).toEqual(expected);
    expect(literalEnv).toContain('HTTP_PORT');
  });

  it('takes exactly the secret variables from the Secret', () => {
    const secrets = rows
      .filter((e) => e.secret)
      .map((e) => e.name)
      .sort();
    expect([...secretEnv].sort()).toEqual(secrets);
  });

  it('misses no required variable', () => {
    const provided = new Set([...literalEnv, ...schema.properties.config.required]);
    // SIGNING_API_BASE_URL: the template always writes it (the simulator's URL by default).
    expect(required.map((e) => e.name).filter((name) => !provided.has(name))).toEqual([]);
  });

  it('gives the default shutdown deadline at least 5 s of the grace period', () => {
    const deadline = Number(configEntry('SHUTDOWN_DEADLINE_MS').default);
    expect(deadline + 5_000).toBeLessThanOrEqual(values.terminationGracePeriodSeconds * 1_000);
  });

  it('declares appVersion equal to the package version', () => {
    const { version } = JSON.parse(read('package.json')) as { version: string };
    expect(read(`${chart}/Chart.yaml`)).toContain(`appVersion: "${version}"`);
  });
});
