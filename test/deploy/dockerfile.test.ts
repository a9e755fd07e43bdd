// Static checks of the Dockerfile (no Docker engine needed), hadolint's verdict on it, and the
// environment the chart gives the service against the service's own CONFIG table.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nodeOptionsOf } from '../../bench/support/image-node-options.js';
import { CONFIG, CONSOLE_VARIABLES, type Variable } from '../../src/config/index.js';
import { pythonTool } from '../support/tools.js';

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

const dockerfile = read('Dockerfile');
const stages = parseDockerfile(dockerfile);
const runtime = stages.at(-1) as Stage;
const stage = (name: string) => {
  const found = stages.find((s) => s.name === name);
  if (!found) throw new Error(`the Dockerfile has no stage ${name}`);
  return found;
};

/** The stage and the stages it is built FROM, back to the external base image. */
function lineage(of: Stage): Stage[] {
  const parent = stages.find((s) => s.name === of.base);
  return parent ? [of, ...lineage(parent)] : [of];
}

interface Copy {
  from: Stage | undefined;
  sources: string[];
  destination: string;
}

function copies(of: Stage): Copy[] {
  return args(of, 'COPY').map((text) => {
    const words = text.split(/\s+/);
    const from = /^--from=(.+)$/.exec(words[0] as string)?.[1];
    const paths = from === undefined ? words : words.slice(1);
    return {
      from: from === undefined ? undefined : stage(from),
      sources: paths.slice(0, -1),
      destination: paths.at(-1) as string,
    };
  });
}

/** How a stage installs npm packages (its one `npm ci` line). */
function npmCi(of: Stage): string {
  const installs = args(of, 'RUN').filter((r) => /\bnpm (ci|install|i)\b/.test(r));
  expect(installs, of.name).toHaveLength(1);
  return installs[0] as string;
}

describe('Dockerfile', () => {
  it('has build, production-dependencies and simulator stages, and the runtime stage last', () => {
    for (const name of ['build', 'production-dependencies', 'simulator']) {
      expect(stage(name)).toBeDefined();
    }
    expect(runtime.name).toBe('runtime');
  });

  it('has no syntax directive, which would make the builder fetch a frontend from a registry', () => {
    expect(dockerfile).not.toMatch(/^#\s*syntax\s*=/im);
    expect(dockerfile.split('\n')[0]).not.toMatch(/syntax/i);
  });

  it('builds from a Node image pinned to a full version, of the major .nvmrc names and engines allow', () => {
    const external = stages
      .map((s) => s.base)
      .filter((base) => !stages.some((s) => s.name === base));
    expect(new Set(external).size).toBe(1);
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

  it('pins every Debian package it installs to a version', () => {
    const installs = stages
      .flatMap((s) => args(s, 'RUN'))
      .flatMap((r) => [...r.matchAll(/apt-get install ([^&;|]+)/g)].map((m) => m[1] as string));
    const packages = installs.flatMap((list) =>
      list.split(/\s+/).filter((w) => w && !w.startsWith('-')),
    );
    expect(packages).toContain('tini=0.19.0-1+b3');
    expect(packages.filter((p) => !/^[a-z0-9.+-]+=[0-9][\w.+~:-]*$/.test(p))).toEqual([]);
  });

  it('when building, installs every dependency, compiles and picks the service modules', () => {
    const runs = args(stage('build'), 'RUN').join('\n');
    expect(npmCi(stage('build'))).not.toContain('--omit');
    expect(runs).toContain('npm run build && node scripts/image/service-files.mjs dist service');
  });

  it('at runtime, copies the service modules, production node_modules, their bill of materials and the licence, and nothing else', () => {
    const outside: string[] = [];
    for (const copy of copies(runtime)) {
      const listing = `COPY ${copy.from ? `--from=${copy.from.name} ` : ''}${copy.sources.join(' ')} ${copy.destination}`;
      if (copy.destination === './dist' && copy.from?.name === 'build') {
        // The output of service-files.mjs: no simulator, no development tools
        // (test/deploy/runtime-image.test.ts runs it).
        expect(copy.sources).toEqual(['/app/service']);
      } else if (copy.destination === './node_modules' && copy.from) {
        expect(copy.sources).toEqual(['/app/node_modules']);
        // Installed with the declared patches applied, then without the development and
        // optional packages (patch-package among them).
        const install = npmCi(copy.from);
        expect(install).toMatch(/\bnpx patch-package --error-on-fail\b/);
        expect(install).toMatch(/\bnpm prune --omit=dev --omit=optional$/);
      } else if (copy.destination === './' && copy.from?.name === 'sbom') {
        // Written from the node_modules copied above (test/deploy/supply-chain.test.ts makes it
        // as that stage does).
        expect(copy.from.base).toBe('production-dependencies');
        expect(copy.sources).toEqual(['/app/sbom.cdx.json']);
      } else if (copy.destination === './' && copy.from === undefined) {
        expect(copy.sources).toEqual(['LICENSE']);
      } else {
        outside.push(listing);
      }
    }
    expect(
      outside,
      'copied into the runtime stage beyond dist/, node_modules, sbom.cdx.json and LICENSE',
    ).toEqual([]);
    expect(copies(runtime)).toHaveLength(4);
    // Nor do the stages it is built FROM copy anything, nor does any stage ADD.
    expect(
      lineage(runtime)
        .slice(1)
        .flatMap((s) => args(s, 'COPY')),
    ).toEqual([]);
    expect(stages.flatMap((s) => args(s, 'ADD'))).toEqual([]);
    expect(read('LICENSE')).toContain('Apache License\n                           Version 2.0');
    expect(JSON.parse(read('package.json')).license).toBe('Apache-2.0');
  });

  it('at runtime, sets NODE_ENV=production and no npm install of its own', () => {
    expect(args(runtime, 'ENV')).toContain('NODE_ENV=production');
    expect(args(runtime, 'RUN').filter((r) => /\bnpm\b/.test(r))).toEqual([]);
  });

  it('at runtime, limits the V8 heap and fixes its young generation in NODE_OPTIONS, which the benchmark runs the bridge with', () => {
    const env = args(runtime, 'ENV');
    const options = '--max-old-space-size=160 --max-semi-space-size=16';
    expect(env).toContain(`NODE_OPTIONS="${options}"`);
    expect(nodeOptionsOf(dockerfile)).toBe(options);
    expect(() => nodeOptionsOf('FROM node:20\nENV NODE_ENV=production\n')).toThrow(/NODE_OPTIONS/);
  });

  it('for the simulator target, has all of dist/, the optional PDF reader and the fixtures', () => {
    const simulator = stage('simulator');
    const install = npmCi(simulator);
    expect(install).toMatch(/\bnpx patch-package --error-on-fail\b/);
    expect(install).toMatch(/\bnpm prune --omit=dev\b/);
    expect(install).not.toContain('--omit=optional');
    expect(copies(simulator).map((c) => `${c.from?.name ?? '.'} ${c.sources.join(' ')}`)).toEqual([
      '. package.json package-lock.json',
      '. patches',
      'build /app/dist',
      '. fixtures',
    ]);
    expect(existsSync(`${repoRoot}fixtures/default.json`)).toBe(true);
    const { optionalDependencies, dependencies } = JSON.parse(read('package.json')) as {
      optionalDependencies: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(Object.keys(optionalDependencies)).toEqual(['pdfjs-dist']);
    expect(Object.keys(dependencies)).not.toContain('pdf-lib');
  });

  it('runs both images as a numeric non-root user', () => {
    for (const s of [runtime, stage('simulator')]) {
      const [uid] = (args(s, 'USER').at(-1) ?? 'root').split(':');
      // Numeric, because Kubernetes' runAsNonRoot cannot check a user name.
      expect(uid, s.name).toMatch(/^\d+$/);
      expect(Number(uid)).toBeGreaterThan(0);
    }
  });

  it('starts node on the CLI under tini: the service by default, the simulator in its target', () => {
    const entrypoint = ['/usr/bin/tini', '--', 'node', 'dist/cli/main.js'];
    const command = (s: Stage) => JSON.parse(args(s, 'CMD').at(-1) ?? '[]') as string[];
    for (const s of [runtime, stage('simulator')]) {
      expect(JSON.parse(args(s, 'ENTRYPOINT').at(-1) ?? '[]'), s.name).toEqual(entrypoint);
    }
    expect(command(runtime)).toEqual(['run']);
    // The chart passes its own arguments, starting with the subcommand, to the same entrypoint.
    expect(command(stage('simulator'))).toEqual(['simulator', '--host', '0.0.0.0']);
    expect(
      lineage(runtime)
        .flatMap((s) => args(s, 'RUN'))
        .join('\n'),
    ).toMatch(/apt-get install .*\btini=/);
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
      .flatMap(copies)
      .filter((c) => c.from === undefined)
      .flatMap((c) => c.sources);
    for (const path of fromContext) expect(allowed, path).toContain(path);
    expect(read('.dockerignore')).toMatch(/^\*$/m);
  });
});

describe('hadolint', () => {
  const hadolint = pythonTool('hadolint');
  const lint = (text: string) =>
    spawnSync(hadolint, ['--no-color', '-'], { input: text, encoding: 'utf8' });

  it('when it lints the Dockerfile, then it reports nothing', () => {
    const result = lint(dockerfile);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('when tini were not pinned, then it would report DL3008', () => {
    const result = lint(dockerfile.replace('tini=0.19.0-1+b3', 'tini'));
    expect(result.stdout).toContain('DL3008');
    expect(result.status).not.toBe(0);
  });
});

// ---- the chart's environment against CONFIG ----

const chart = 'helm/signing-bridge';
const templates = readdirSync(`${repoRoot}${chart}/templates`)
  .filter((file) => file.endsWith('.yaml') || file.endsWith('.tpl'))
  .map((file) => read(`${chart}/templates/${file}`))
  .join('\n');
const schemaText = read(`${chart}/values.schema.json`);

const rows: readonly Variable[] = CONFIG;

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
/** The env entries whose value is a Secret's key, by the variable they set. */
const secretEnv = [
  ...templates.matchAll(/- name: ([A-Z][A-Z0-9_]*)\s*\n\s*valueFrom:\s*\n\s*secretKeyRef:/g),
].map((m) => m[1]);

describe('the chart against CONFIG', () => {
  const known = new Set(rows.map((e) => e.name as string));
  // A variable without a default is required (src/config/variable.ts).
  const required = rows.filter((e) => e.default === undefined);

  it('sets no variable the service (or, for the console, signing-bridge console) does not know', () => {
    const consoles = new Set(CONSOLE_VARIABLES.map((e) => e.name as string));
    const set = [
      // Node's own, from the chart's nodeOptions.
      ...literalEnv.filter((name) => name !== 'NODE_OPTIONS'),
      ...Object.keys(values.config),
      ...Object.keys(schema.properties.config.properties),
    ];
    const unknown = set.filter((name) => !known.has(name as string));
    expect(unknown.filter((name) => !consoles.has(name as string))).toEqual([]);
  });

  it('accepts in `config` every non-secret variable except those it sets itself', () => {
    // SIGNING_API_BASE_URL, written by the template, comes from config (or the simulator).
    const chartOwned = literalEnv.filter((name) => name !== 'SIGNING_API_BASE_URL');
    const expected = rows
      .filter((e) => !e.secret && !chartOwned.includes(e.name))
      .map((e) => e.name)
      .sort();
    expect(Object.keys(schema.properties.config.properties).sort()).toEqual(expected);
    expect(literalEnv).toContain('HTTP_PORT');
  });

  it('takes every secret variable from a Secret: by secretKeyRef, or as the file its _FILE twin names', () => {
    const secrets = rows.filter((e) => e.secret).map((e) => e.name as string);
    const fromSecret = (name: string) =>
      secretEnv.includes(name) || literalEnv.includes(`${name}_FILE`);
    expect(secrets.filter((name) => !fromSecret(name))).toEqual([]);
    // And a secretKeyRef only for a secret variable.
    expect(secretEnv.filter((name) => !secrets.includes(name as string))).toEqual([]);
    expect(secretEnv).toEqual([
      'SIGNING_APP_TOKEN',
      'SIGNING_APP_SECRET',
      'OTEL_EXPORTER_OTLP_HEADERS',
    ]);
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
