// The service image's files, assembled without a Docker engine the way the Dockerfile assembles
// them: the compiled code through scripts/image/service-files.mjs, the production dependencies
// of package-lock.json (`npm ci --omit=dev --omit=optional`), and nothing else. The service must
// run from them, and the simulator, which they leave out, must say so.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

interface LockEntry {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
}

/** The top-level packages `npm ci --omit=dev --omit=optional` installs, from the lockfile. */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(`${repoRoot}package-lock.json`, 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  return Object.entries(lock.packages)
    .filter(([path]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path))
    .filter(([, entry]) => !entry.dev && !entry.optional && !entry.devOptional)
    .map(([path]) => path.slice('node_modules/'.length));
}

function run(command: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(command, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function serviceFiles(dist: string, target: string) {
  return run(process.execPath, ['scripts/image/service-files.mjs', dist, target]);
}

/**
 * An /app with these compiled modules and the production dependencies as symlinks, in the
 * system's temporary folder: under the repository, Node would find its full node_modules.
 */
function assemble(root: string, dist: string): string {
  const app = join(root, 'app');
  cpSync(dist, join(app, 'dist'), { recursive: true });
  for (const name of productionPackages()) {
    const link = join(app, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules', name), link, 'dir');
  }
  return app;
}

const VALID_ENV = {
  KAFKA_BROKERS: 'localhost:9092',
  SIGNING_API_BASE_URL: 'https://open.signing.example.com',
  SIGNING_APP_TOKEN: 'token',
  SIGNING_APP_SECRET: 'secret',
};

let root: string;
let build: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'signing-bridge-image-'));
  build = join(root, 'build');
  const tsc = run(process.execPath, [
    'node_modules/typescript/bin/tsc',
    '-p',
    'tsconfig.build.json',
    '--outDir',
    build,
  ]);
  expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the service image, assembled as the Dockerfile does', () => {
  it('when its modules are picked, then they are the service alone, importing production dependencies only', () => {
    const listed = serviceFiles(build, '--list');
    expect(listed.status, listed.stderr).toBe(0);
    const { files, packages } = JSON.parse(listed.stdout) as {
      files: string[];
      packages: string[];
    };
    expect(files).toContain('cli/main.js');
    expect(files).toContain('cli/run-command.js');
    expect(
      files.filter((f) => f.startsWith('simulator/') || f.includes('simulator-command')),
    ).toEqual([]);
    // Development tools compiled beside the service.
    expect(files).not.toContain('config/write-docs.js');
    expect(files.filter((f) => f.startsWith('schemas/export/'))).toEqual([]);
    const { dependencies } = JSON.parse(readFileSync(`${repoRoot}package.json`, 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(packages.filter((name) => !(name in dependencies))).toEqual([]);
    expect(productionPackages()).not.toContain('pdfjs-dist');
    expect(productionPackages()).not.toContain('pdf-lib');
  });

  it('when the service runs from them, then it loads and checks its configuration', () => {
    const service = join(root, 'service');
    expect(serviceFiles(build, service).status).toBe(0);
    const app = assemble(join(root, 'runtime'), service);
    const main = join(app, 'dist/cli/main.js');
    const checked = run(process.execPath, [main, 'run', '--check-config'], VALID_ENV);
    expect(checked.status, checked.stderr).toBe(0);
    expect(checked.stdout).toContain('configuration is valid');
  });

  it('when tracing is asked for, then the OpenTelemetry SDK it loads on demand is there and loads', () => {
    const app = join(root, 'runtime', 'app');
    for (const module of ['observability/tracing-sdk.js', 'observability/command-span.js']) {
      const path = join(app, 'dist', module);
      const loaded = run(process.execPath, [
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(path)});`,
      ]);
      expect(loaded.status, loaded.stderr).toBe(0);
    }
  });

  it('when the console is asked of it, then it is there: one command, its configuration checked', () => {
    const app = join(root, 'runtime', 'app');
    const main = join(app, 'dist/cli/main.js');
    const env = { KAFKA_BROKERS: 'localhost:9092', CONSOLE_AUTH: 'proxy' };
    const checked = run(process.execPath, [main, 'console', '--check-config'], env);
    expect(checked.status, checked.stderr).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ CONSOLE_AUTH: 'proxy', CONSOLE_PORT: 8090 });
    const unconfigured = run(process.execPath, [main, 'console'], {
      KAFKA_BROKERS: 'localhost:9092',
    });
    expect(unconfigured.status).toBe(3);
    expect(unconfigured.stderr).toContain('CONSOLE_AUTH is required');
  });

  it('when the simulator is asked of it, then it says the simulator is left out and where to find it', () => {
    const app = join(root, 'runtime', 'app');
    const asked = run(process.execPath, [
      join(app, 'dist/cli/main.js'),
      'simulator',
      '--port',
      '0',
    ]);
    expect(asked.status).toBe(1);
    expect(asked.stderr).toMatch(
      /^signing-bridge simulator: The simulator is not installed here \(.*simulator-command\.js is missing\)/,
    );
    expect(asked.stderr).toContain("build the Dockerfile's `simulator` target");
  });

  it('when the simulator runs without the optional pdfjs-dist, then it names the missing package', () => {
    // The simulator image's files, less pdfjs-dist: what `npm ci --omit=optional` leaves.
    const app = assemble(join(root, 'without-optional'), build);
    cpSync(`${repoRoot}fixtures`, join(app, 'fixtures'), { recursive: true });
    const asked = run(process.execPath, [
      join(app, 'dist/cli/main.js'),
      'simulator',
      '--port',
      '0',
    ]);
    expect(asked.status).toBe(1);
    expect(asked.stderr).toContain(
      'signing-bridge simulator: cannot start: The simulator is not installed here (pdfjs-dist is missing).',
    );
  });
});
