import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DEMO_CREDENTIALS } from './simulator-credentials.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/**
 * The service in a child process, as deployed: `signing-bridge run` (src/cli/main.ts) with its
 * configuration in the environment, for tests that kill it. Its warnings and errors go to
 * stderr; it is ready once it logs that the bridge started. With BRIDGE_LOG_DIR set (to look
 * into a failing run), every line it logs also goes to `<dir>/<pid>.log`.
 */
export class BridgeProcess {
  readonly exited: Promise<number | null>;
  /** Every log line at warn or above, parsed, in order. */
  readonly warnings: Array<Record<string, unknown>> = [];
  /** Every log line whose message the start options asked to keep, parsed, in order. */
  readonly kept: Array<Record<string, unknown>> = [];
  readonly #child: ChildProcess;
  readonly #keep: ReadonlySet<string>;

  private constructor(child: ChildProcess, keep: readonly string[]) {
    this.#child = child;
    this.#keep = new Set(keep);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static async start(options: {
    brokers: string[];
    prefix: string;
    groupId: string;
    simulatorUrl: string;
    /** More configuration variables, e.g. { PRECONDITION_TIMEOUT_MS: '60000' }. */
    env?: Record<string, string>;
    /** Messages (`msg`) of the log lines to keep in `kept`. */
    keep?: readonly string[];
  }): Promise<BridgeProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'run'], {
      env: {
        ...process.env,
        KAFKA_BROKERS: options.brokers.join(','),
        KAFKA_GROUP_ID: options.groupId,
        TOPIC_PREFIX: options.prefix,
        SIGNING_API_BASE_URL: options.simulatorUrl,
        SIGNING_APP_TOKEN: DEMO_CREDENTIALS.appToken,
        SIGNING_APP_SECRET: DEMO_CREDENTIALS.appSecret,
        SIGNING_RPS: '0',
        HTTP_PORT: '0',
        LOG_LEVEL: 'info',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const running = new BridgeProcess(child, options.keep ?? []);
    await new Promise<void>((resolve, reject) => {
      const logDir = process.env.BRIDGE_LOG_DIR;
      if (logDir) mkdirSync(logDir, { recursive: true });
      createInterface({ input: child.stdout as Readable }).on('line', (line) => {
        if (logDir) appendFileSync(join(logDir, `${child.pid}.log`), `${line}\n`);
        running.#keepLine(line);
        if (line.includes('"msg":"bridge started"')) resolve();
        else if (/"level":(4|5|6)\d/.test(line)) {
          running.warnings.push(JSON.parse(line));
          process.stderr.write(`${line}\n`);
        }
      });
      void running.exited.then((code) => reject(new Error(`bridge process exited with ${code}`)));
    });
    return running;
  }

  #keepLine(line: string): void {
    if (this.#keep.size === 0 || !line.startsWith('{')) return;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (this.#keep.has(String(parsed.msg))) this.kept.push(parsed);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  kill(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }
}
