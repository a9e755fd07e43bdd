// Tools nobody on the project wrote, installed by the project's own scripts under .tools/ (git
// ignored), the way CI gets them on a clean clone: a Python virtual environment from PyPI, the
// AsyncAPI parser from npm.
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The python of .tools/venv/<name>, made from `requirements` (a path under the repository). */
export function pythonVenv(name: string, requirements: string): string {
  return execFileSync(
    'bash',
    [`${REPO_ROOT}scripts/tools/python-venv.sh`, name, `${REPO_ROOT}${requirements}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 },
  ).trim();
}

/** The folder @asyncapi/parser is installed in. */
export function asyncapiParser(): string {
  return execFileSync('bash', [`${REPO_ROOT}scripts/tools/asyncapi-parser.sh`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 300_000,
  }).trim();
}

/** Whether a program answers on PATH (`java -version`, `python3 --version`, ...). */
export function onPath(program: string, versionFlag = '--version'): boolean {
  return spawnSync(program, [versionFlag], { stdio: 'ignore' }).status === 0;
}
