/**
 * `signing-bridge simulator`: serves the platform simulator until SIGINT or SIGTERM, then closes
 * it gracefully and exits 0.
 */
import { once } from 'node:events';
import { stderr, stdout } from 'node:process';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ConfigInvalid, SimulatorNotInstalled } from '../errors.js';
import { DEFAULT_FIXTURES_PATH, type FaultConfig, startSimulator } from '../simulator/index.js';
import { faultOptionUsage, parseFaultOption } from './fault-option.js';

const DEFAULT_PORT = 9300;
/** The usage text's column of option descriptions, and its width. */
const USAGE_COLUMN = 24;
const USAGE_WIDTH = 92;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  fixtures: { type: 'string' },
  'auth-window-ms': { type: 'string' },
  nonce: { type: 'boolean' },
  'header-prefix': { type: 'string' },
  'latency-ms': { type: 'string' },
  'error-rate': { type: 'string' },
  rps: { type: 'string' },
  fault: { type: 'string', multiple: true },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function usage(): string {
  return `Usage: signing-bridge simulator [options]

Serves a simulator of the e-contract signing platform: the seven /v2 operations with the
spec's rules and codes, and an admin API under /admin (see docs/simulator.md).

Options:
  --port P              port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host H              address to listen on (default 127.0.0.1)
  --fixtures F          fixtures JSON file (default fixtures/default.json:
                        app token demo-app-token, app secret demo-app-secret)
  --auth-window-ms N    accepted distance of a request timestamp from the server clock,
                        in milliseconds (default 300000)
  --nonce               require the nonce header, each nonce usable once in ten minutes
  --header-prefix X     prefix of the authentication headers (default x-svc-open-)
  --latency-ms N        add N ms before every platform answer
  --error-rate R        fail this share (0..1) of platform calls with HTTP 503
  --rps N               answer HTTP 429 (code 429) beyond N requests per second
  --fault SPEC          ${faultOptionUsage(USAGE_COLUMN, USAGE_WIDTH)}
  --quiet               no log line per request
  -h, --help            show this help
`;
}

export async function main(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(argv);
  } catch (error) {
    stderr.write(`signing-bridge simulator: ${(error as Error).message}\n\n${usage()}`);
    return 2;
  }
  if (values.help) {
    stdout.write(usage());
    return 0;
  }
  const log = values.quiet
    ? false
    : pino({ name: 'simulator' }, pino.destination({ dest: 1, sync: false }));
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  try {
    simulator = await startSimulator({ ...values.options, log });
  } catch (error) {
    const known = error instanceof ConfigInvalid || error instanceof SimulatorNotInstalled;
    const reason = known ? error.message : String(error);
    stderr.write(`signing-bridge simulator: cannot start: ${reason}\n`);
    return 1;
  }
  stderr.write(`signing-bridge simulator listening on ${simulator.url}\n`);
  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  await simulator.stop();
  if (log) await new Promise<void>((resolve) => log.flush(() => resolve()));
  return 0;
}

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: OPTIONS,
    strict: true,
    allowPositionals: false,
  });
  return {
    help: values.help ?? false,
    quiet: values.quiet ?? false,
    options: {
      port: integer('--port', values.port ?? String(DEFAULT_PORT), 0, 65_535),
      host: values.host ?? '127.0.0.1',
      fixtures: values.fixtures ?? DEFAULT_FIXTURES_PATH,
      auth: {
        windowMs: optional(values['auth-window-ms'], (v) => integer('--auth-window-ms', v, 0)),
        nonce: values.nonce ?? false,
        headerPrefix: values['header-prefix'],
      },
      faults: faultsOf(values),
    },
  };
}

function faultsOf(values: {
  'latency-ms'?: string;
  'error-rate'?: string;
  rps?: string;
  fault?: string[];
}): FaultConfig {
  const latencyMs = optional(values['latency-ms'], (v) => integer('--latency-ms', v, 0, 600_000));
  const errorRate = optional(values['error-rate'], (v) => decimal('--error-rate', v, 0, 1));
  const rps = optional(values.rps, (v) => decimal('--rps', v, 0.001));
  return {
    ...(latencyMs !== undefined ? { latency: { fixedMs: latencyMs } } : {}),
    ...(errorRate !== undefined
      ? { operations: { '*': { errorRate, error: 'http503' as const } } }
      : {}),
    ...(rps !== undefined ? { requestsPerSecond: rps } : {}),
    ...(values.fault ? { script: values.fault.map(parseFaultOption) } : {}),
  };
}

function optional<T>(value: string | undefined, read: (value: string) => T): T | undefined {
  return value === undefined ? undefined : read(value);
}

function integer(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value)) throw new Error(`${flag} must be a whole number, got "${value}"`);
  return decimal(flag, value, min, max);
}

function decimal(flag: string, value: string, min: number, max = Number.MAX_VALUE): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < min || number > max) {
    throw new Error(`${flag} must be a number from ${min} to ${max}, got "${value}"`);
  }
  return number;
}
