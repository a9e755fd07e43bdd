// The image's supply chain: its software bill of materials (/app/sbom.cdx.json), made as the
// Dockerfile's sbom stage makes it and judged by the CycloneDX project's own validator and
// against the packages the runtime image installs; every runtime dependency pinned exactly; and
// docs/deployment.md's table of them true to package.json.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonTool, REPO_ROOT } from '../support/tools.js';

const read = (path: string) => readFileSync(`${REPO_ROOT}${path}`, 'utf8');

interface Component {
  name: string;
  version: string;
  type: string;
  externalReferences?: Array<{ type: string; url: string }>;
  pedigree?: { patches: Array<{ type: string; diff: { text: { content: string } } }> };
}

interface Bom {
  specVersion: string;
  metadata: { component: Component };
  components: Component[];
}

interface LockEntry {
  version: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
}

const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
const manifest = JSON.parse(read('package.json')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
};

/** `name@version` of every package package-lock.json installs at any depth, those `keep` takes. */
function lockPackages(keep: (entry: LockEntry) => boolean): string[] {
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && keep(entry))
    .map(
      ([path, entry]) => `${path.slice(path.lastIndexOf('node_modules/') + 13)}@${entry.version}`,
    )
    .sort();
}

/** `name@version` of every package under a node_modules folder, at any depth. */
function installed(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(join(nodeModules, entry)).map((name) => join(entry, name))
        : [entry],
    )
    .flatMap((name) => {
      const dir = join(nodeModules, name);
      const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      return [`${name}@${version}`, ...installed(join(dir, 'node_modules'))];
    })
    .sort();
}

/** The RUN commands of one stage of the Dockerfile, continuation lines joined. */
function runsOfStage(name: string): string[] {
  const stages = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split(/^FROM /m);
  const stage = stages.find((text) => new RegExp(`^\\S+ AS ${name}\\s*$`, 'im').test(text));
  if (!stage) throw new Error(`the Dockerfile has no stage ${name}`);
  return [...stage.matchAll(/^RUN (.+)$/gm)].map((match) => match[1] as string);
}

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  }
  return result.stdout;
}

function validate(file: string) {
  return spawnSync(pythonTool('python'), [`${REPO_ROOT}scripts/image/validate-sbom.py`, file], {
    encoding: 'utf8',
  });
}

let scratch: string;
/** The sbom stage's folder: what production-dependencies left in /app. */
let app: string;
let bom: Bom;
const names = () => bom.components.map((c) => `${c.name}@${c.version}`).sort();

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'signing-bridge-sbom-'));
  app = join(scratch, 'app');
  mkdirSync(join(app, 'scripts/image'), { recursive: true });
  for (const file of ['package.json', 'package-lock.json', 'scripts/image/sbom.mjs']) {
    cpSync(`${REPO_ROOT}${file}`, join(app, file));
  }
  cpSync(`${REPO_ROOT}patches`, join(app, 'patches'), { recursive: true });
  // The tree production-dependencies ends with (its `npm prune --omit=dev --omit=optional`),
  // from npm's cache. The patches change files, not which packages are there: npm's document
  // reads only their package.json.
  run(
    'npm',
    ['ci', '--omit=dev', '--omit=optional', '--ignore-scripts', '--prefer-offline', '--no-audit'],
    app,
  );
  for (const command of runsOfStage('sbom')) run('sh', ['-c', command], app);
  bom = JSON.parse(readFileSync(join(app, 'sbom.cdx.json'), 'utf8')) as Bom;
}, 180_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the image SBOM, made as the Dockerfile makes it', () => {
  it('is valid CycloneDX for the schema of its version (cyclonedx-python-lib, formats too)', () => {
    const result = validate(join(app, 'sbom.cdx.json'));
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(bom.specVersion).toMatch(/^1\.\d+$/);
  });

  it('when a component breaks the schema, then the validator names it (the check can fail)', () => {
    const broken = structuredClone(bom);
    (broken.components[0] as Component).externalReferences = [
      { type: 'vcs', url: 'git@github.com:owner/repo.git' },
    ];
    (broken.components[1] as { version: unknown }).version = 2;
    const file = join(scratch, 'broken.cdx.json');
    writeFileSync(file, JSON.stringify(broken));
    const result = validate(file);
    expect(result.stdout).toContain('$.components[0].externalReferences[0].url:');
    expect(result.stdout).toContain('$.components[1].version:');
    expect(result.status).toBe(1);
  });

  it('lists exactly the packages the production install holds, each at its installed version', () => {
    const tree = installed(join(app, 'node_modules'));
    expect(tree.length).toBeGreaterThan(10);
    expect(names()).toEqual(tree);
  });

  it("lists exactly package-lock.json's production packages, and no development or optional one", () => {
    const production = lockPackages((e) => !e.dev && !e.optional && !e.devOptional);
    expect(names()).toEqual(production);
    for (const name of Object.keys(manifest.dependencies)) {
      expect(names()).toContain(`${name}@${manifest.dependencies[name]}`);
    }
    const others = lockPackages((e) => Boolean(e.dev || e.optional || e.devOptional));
    expect(names().filter((name) => others.includes(name))).toEqual([]);
    // Production packages that development ones use too: `npm sbom --omit=dev` loses them.
    expect(names()).toContain(`undici@${manifest.dependencies.undici}`);
  });

  it('describes the image: signing-bridge at the package version, an application', () => {
    expect(bom.metadata.component).toMatchObject({
      name: manifest.name,
      version: manifest.version,
      type: 'application',
    });
  });

  it('carries each declared patch (patches/) in the pedigree of the package it patches', () => {
    const patches = readdirSync(`${REPO_ROOT}patches`).filter((file) => file.endsWith('.patch'));
    expect(patches).toContain(`kafkajs+${manifest.dependencies.kafkajs}.patch`);
    for (const file of patches) {
      // patch-package's names: `kafkajs+2.2.4.patch`, `@scope+name+1.0.0.patch`.
      const at = file.lastIndexOf('+');
      const [name, version] = [file.slice(0, at).replace('+', '/'), file.slice(at + 1, -6)];
      const component = bom.components.find((c) => c.name === name && c.version === version);
      expect(component?.pedigree?.patches, file).toEqual([
        {
          type: 'unofficial',
          diff: { text: { contentType: 'text/x-diff', content: read(`patches/${file}`) } },
        },
      ]);
    }
    expect(bom.components.filter((c) => c.pedigree).length).toBe(patches.length);
  });
});

describe('scripts/image/sbom.mjs, on what npm wrote', () => {
  /** Runs the script in a folder with package.json and `patches`; its output or its error. */
  function correct(npmBom: unknown, patches: Record<string, string> = {}) {
    const dir = mkdtempSync(join(scratch, 'correct-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'signing-bridge' }));
    mkdirSync(join(dir, 'patches'));
    for (const [file, text] of Object.entries(patches))
      writeFileSync(join(dir, 'patches', file), text);
    writeFileSync(join(dir, 'npm.json'), JSON.stringify(npmBom));
    return spawnSync(process.execPath, [`${REPO_ROOT}scripts/image/sbom.mjs`, 'npm.json'], {
      cwd: dir,
      encoding: 'utf8',
    });
  }

  const npmBom = {
    metadata: { component: { name: 'app', version: '1.0.0' } },
    components: [
      {
        name: 'a',
        version: '1.0.0',
        externalReferences: [
          { type: 'vcs', url: 'git@github.com:owner/a.git' },
          { type: 'vcs', url: 'git+https://github.com/owner/a.git' },
          { type: 'website', url: 'https://a.example' },
        ],
      },
      { name: '@scope/b', version: '2.0.0' },
    ],
  };

  it("when a repository URL is written the scp way, then it becomes the ssh URL it stands for, and the document's component takes package.json's name", () => {
    const result = correct(npmBom);
    expect(result.status, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as Bom;
    expect(out.components[0]?.externalReferences?.map((r) => r.url)).toEqual([
      'git+ssh://git@github.com/owner/a.git',
      'git+https://github.com/owner/a.git',
      'https://a.example',
    ]);
    expect(out.metadata.component.name).toBe('signing-bridge');
  });

  it('when a patch names a scoped package, then that package carries it; when one names a package not there, then it fails naming it', () => {
    const scoped = correct(npmBom, { '@scope+b+2.0.0.patch': 'diff' });
    expect(scoped.status, scoped.stderr).toBe(0);
    const [a, b] = (JSON.parse(scoped.stdout) as Bom).components;
    expect(a?.pedigree).toBeUndefined();
    expect(b?.pedigree?.patches[0]?.diff.text.content).toBe('diff');
    const stray = correct(npmBom, { 'b+2.0.0.patch': 'diff' });
    expect(stray.status).not.toBe(0);
    expect(stray.stderr).toContain('b@2.0.0, which the tree does not hold');
  });
});

describe('runtime dependencies', () => {
  /** A version npm can resolve to one release only: no range, tag, URL or path. */
  const exact = (spec: string) =>
    /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(spec);

  it("are each pinned to one exact version, the one package-lock.json installs (the simulator's optional one too)", () => {
    const pins = { ...manifest.dependencies, ...manifest.optionalDependencies };
    expect(Object.entries(pins).filter(([, spec]) => !exact(spec))).toEqual([]);
    for (const [name, spec] of Object.entries(pins)) {
      expect(lock.packages[`node_modules/${name}`]?.version, name).toBe(spec);
    }
  });

  it('when a version is a range, a tag, a URL or a path, then the pin check refuses it', () => {
    const loose = [
      '^2.2.4',
      '~2.2.4',
      '>=2.2.4',
      '2.2.x',
      '2',
      '*',
      'latest',
      'github:a/b',
      'file:../k',
    ];
    expect(loose.filter(exact)).toEqual([]);
    expect(['2.2.4', '1.0.0-rc.1', '0.223.1'].every(exact)).toBe(true);
  });

  it("are each in docs/deployment.md's table at the pinned version", () => {
    const rows = new Map(
      [...read('docs/deployment.md').matchAll(/^\| `([^`]+)` \| ([^ |]+) \|/gm)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    for (const [name, spec] of Object.entries(manifest.dependencies)) {
      expect(rows.get(name), name).toBe(spec);
    }
  });
});
