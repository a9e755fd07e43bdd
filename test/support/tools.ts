/**
 * The outside tools the tests judge with, each pinned and installed by the project's own
 * scripts (scripts/tools) into .tools/, so `npm test` on a clean clone needs nothing installed
 * by hand beyond Go and Python. The integration project's global setup installs every one of
 * them before any test runs (prepareTools), each within a budget of its own; a test only finds
 * its tool ready (the scripts' `--check`), so no test's time includes a build.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Tool {
  /** Its installer under scripts/tools, and the installer's arguments. */
  readonly script: string;
  readonly args: readonly string[];
  /**
   * How long installing it may take, at worst. A cold Go build takes about 5 minutes on two
   * quiet cores; on a machine loaded eight times over, promtool's overran 15.
   */
  readonly budgetMinutes: number;
}

const venv = (name: string, requirements: string): Tool => ({
  script: 'python-venv.sh',
  args: [name, `${REPO_ROOT}${requirements}`],
  budgetMinutes: 10,
});

const TOOLS = {
  helm: { script: 'install-go-tool.sh', args: ['helm'], budgetMinutes: 30 },
  promtool: { script: 'install-go-tool.sh', args: ['promtool'], budgetMinutes: 30 },
  // hadolint, kubernetes-validate and the CycloneDX validator (scripts/tools/requirements.txt).
  'deploy-tools': { script: 'install-python-tools.sh', args: [], budgetMinutes: 10 },
  contracts: venv('contracts', 'scripts/contracts/requirements.txt'),
  otlp: venv('otlp', 'scripts/observability/requirements.txt'),
  'examples-python': venv('examples-python', 'examples/python/requirements.txt'),
  'asyncapi-parser': { script: 'asyncapi-parser.sh', args: [], budgetMinutes: 5 },
  // The other Node the SDK supports (docs/sdk.md), from the npm registry.
  'node-26': { script: 'install-node.sh', args: ['26'], budgetMinutes: 5 },
  // The console's browser test (test/console/): Debian's chromium, driven by playwright-core.
  chromium: { script: 'install-chromium.sh', args: [], budgetMinutes: 10 },
} as const satisfies Record<string, Tool>;

type ToolName = keyof typeof TOOLS;

function installer(name: ToolName, check: boolean): string[] {
  const { script, args } = TOOLS[name];
  return [`${REPO_ROOT}scripts/tools/${script}`, ...(check ? ['--check'] : []), ...args];
}

/** The tool's path when it is installed; otherwise what installing it would take. */
function check(name: ToolName): { ready: boolean; text: string } {
  const result = spawnSync('bash', installer(name, true), { encoding: 'utf8' });
  return { ready: result.status === 0, text: (result.stdout || result.stderr).trim() };
}

function ready(name: ToolName): string {
  const { ready, text } = check(name);
  if (ready) return text;
  const command = installer(name, false).join(' ');
  throw new Error(
    `${name} is not installed (${text}). The integration tests' global setup installs it before ` +
      `the tests run: its "[tools]" lines say why it could not. By hand: bash ${command}`,
  );
}

/** helm or promtool, built from its Go module. */
export function goTool(name: 'helm' | 'promtool'): string {
  return ready(name);
}

/** hadolint, kubernetes-validate, or the python of .tools/venvs/deploy-tools. */
export function pythonTool(name: 'hadolint' | 'kubernetes-validate' | 'python'): string {
  return `${ready('deploy-tools')}/${name}`;
}

/** The python of .tools/venvs/<name>, made from the requirements file TOOLS names. */
export function pythonVenv(name: 'contracts' | 'otlp' | 'examples-python'): string {
  return ready(name);
}

/** The `node` of a Node version the SDK supports beside the project's own. */
export function nodeTool(major: '26'): string {
  return ready(`node-${major}`);
}

/** Debian's Chromium, for the console's browser test. */
export function chromiumPath(): string {
  return ready('chromium');
}

/** The folder @asyncapi/parser is installed in, from npm. */
export function asyncapiParser(): string {
  return ready('asyncapi-parser');
}

/** Whether a program answers on PATH (`java -version`, `python3 --version`, ...). */
export function onPath(program: string, versionFlag = '--version'): boolean {
  return spawnSync(program, [versionFlag], { stdio: 'ignore' }).status === 0;
}

const LOGS = `${REPO_ROOT}.tools/logs`;
const seconds = (since: number) => Math.round((Date.now() - since) / 1000);

/**
 * Installs every tool that is not installed yet, all at once (downloads wait on the network,
 * builds on the CPU), each stopped when it overruns its budget, with a line when each starts
 * and ends and, every minute, one naming those still at it. Never rejects: a tool it could not
 * install fails the tests that use it, with the reason printed here and its log kept under
 * .tools/logs/. `signal` stops the installs under way (the broker could not start).
 */
export async function prepareTools(
  signal: AbortSignal,
  log: (line: string) => void = console.log,
): Promise<void> {
  const started = Date.now();
  const names = Object.keys(TOOLS) as ToolName[];
  const missing = names.map((name) => ({ name, ...check(name) })).filter((tool) => !tool.ready);
  if (missing.length === 0) {
    log(`[tools] ${names.join(', ')}: ready`);
    return;
  }
  mkdirSync(LOGS, { recursive: true });
  const running = new Set(missing.map((tool) => tool.name));
  const heartbeat = setInterval(() => {
    log(`[tools] still installing ${[...running].join(', ')} (${seconds(started)} s)`);
  }, 60_000);
  try {
    await Promise.all(
      missing.map(({ name, text }) =>
        install(name, text, signal, log).finally(() => running.delete(name)),
      ),
    );
  } finally {
    clearInterval(heartbeat);
  }
  log(`[tools] done in ${seconds(started)} s`);
}

/** Installs one tool; `what` is what its `--check` said installing it takes. */
async function install(
  name: ToolName,
  what: string,
  signal: AbortSignal,
  log: (line: string) => void,
) {
  const { budgetMinutes } = TOOLS[name];
  const logFile = `${LOGS}/${name}.log`;
  log(`[tools] installing ${what}, up to ${budgetMinutes} min`);
  const started = Date.now();
  const outcome = await runWithin(installer(name, false), logFile, budgetMinutes * 60_000, signal);
  if (outcome === 'done' && check(name).ready) {
    log(`[tools] ${name} ready in ${seconds(started)} s`);
    return;
  }
  const why = {
    done: 'it did not end up installed',
    failed: 'its installer failed',
    overran: `it overran its ${budgetMinutes} min budget and was stopped`,
    stopped: 'the run stopped it',
  }[outcome];
  const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
  log(
    `[tools] ${name} NOT installed after ${seconds(started)} s: ${why}; the tests that use it ` +
      `will fail. The end of ${logFile}:\n${tail}`,
  );
}

/**
 * Runs an installer with its output into `logFile`, in a process group of its own so that
 * stopping it stops what it started (go, pip, npm), also when vitest exits first.
 */
function runWithin(
  command: string[],
  logFile: string,
  budgetMs: number,
  signal: AbortSignal,
): Promise<'done' | 'failed' | 'overran' | 'stopped'> {
  const output = openSync(logFile, 'w');
  const child = spawn('bash', command, { stdio: ['ignore', output, output], detached: true });
  closeSync(output);
  const stop = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  let ending: 'overran' | 'stopped' | undefined;
  const timer = setTimeout(() => {
    ending = 'overran';
    stop();
  }, budgetMs);
  const onAbort = () => {
    ending = 'stopped';
    stop();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  process.once('exit', stop);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      process.removeListener('exit', stop);
      resolve(ending ?? (code === 0 ? 'done' : 'failed'));
    });
    child.once('error', () => resolve('failed'));
  });
}
