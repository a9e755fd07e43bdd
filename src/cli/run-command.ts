/**
 * `signing-bridge run`: the service. Configuration comes from the environment only. SIGTERM or
 * SIGINT stops it gracefully (exit 0); a second signal forces exit 1; a crash logs and exits 1.
 */
import { stderr, stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { type Logger, pino } from 'pino';
import { loggerSettings } from '../config/component-settings.js';
import {
  type Config,
  configSummary,
  describeUnknown,
  loadConfig,
  renderConfigHelp,
  type UnknownVariable,
  unknownVariables,
} from '../config/index.js';
import { ConfigInvalid } from '../errors.js';
import { createLogger } from '../observability/index.js';
import { composeService, type Service } from '../service.js';

// After a graceful stop, handles a dependency forgot to close must not keep the process alive.
const EXIT_GRACE_MS = 2_000;

const USAGE = `Usage: signing-bridge run [--check-config]

Consumes the command topics, calls the signing platform, publishes result and failure events.
Configuration is read from environment variables only (see docs/configuration.md).

Variables ending in _FILE name a file read at start; secrets are never logged.

Options:
  --check-config  check the configuration, print what is wrong (unknown variables with the
                  bridge's prefixes included) or the configuration (secrets masked), and exit
                  (0 valid, 1 not)
  -h, --help      show this help
`;

export async function main(argv: string[]): Promise<number> {
  const options = parseOptions(argv);
  if (options === undefined) return 2;
  if (options.help) {
    stdout.write(
      `${USAGE}\nEnvironment variables (unset or empty: the default):\n\n${renderConfigHelp()}`,
    );
    return 0;
  }
  const unknown = unknownVariables(process.env);
  const config = readConfig(unknown);
  if (config === undefined) return 1;
  if (options['check-config']) return checkConfig(config, unknown);
  const log = createLogger(loggerSettings(config));
  if (unknown.length > 0) log.warn({ unknownVariables: unknown }, describeUnknown(unknown));
  return run(config, log);
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  'check-config': { type: 'boolean' },
} as const;

function parseOptions(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, strict: true }).values;
  } catch (error) {
    stderr.write(`signing-bridge run: ${(error as Error).message}\n\n${USAGE}`);
    return undefined;
  }
}

/**
 * Every bad variable named in one message, on stderr: logging needs a valid LOG_LEVEL first.
 * Unknown names are said too: a misspelt required variable is why it is missing.
 */
function readConfig(unknown: readonly UnknownVariable[]): Config | undefined {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigInvalid)) throw error;
    stderr.write(`signing-bridge run: ${error.message}\n`);
    if (unknown.length > 0) stderr.write(`signing-bridge run: ${describeUnknown(unknown)}\n`);
    return undefined;
  }
}

/**
 * Builds every part (connecting nothing), so settings a part refuses are caught too. An unknown
 * variable with one of the bridge's prefixes is an error here (at `run`, a warning). It prints
 * only its verdict: the parts it builds and stops log nothing.
 */
async function checkConfig(config: Config, unknown: readonly UnknownVariable[]): Promise<number> {
  let valid = unknown.length === 0;
  if (!valid) stderr.write(`signing-bridge run: ${describeUnknown(unknown)}\n`);
  try {
    await composeService(config, pino({ level: 'silent' })).stop();
  } catch (error) {
    if (!(error instanceof ConfigInvalid)) throw error;
    stderr.write(`signing-bridge run: ${error.message}\n`);
    valid = false;
  }
  if (!valid) return 1;
  const summary = JSON.stringify(configSummary(config), null, 2);
  stdout.write(`configuration is valid (secrets masked):\n${summary}\n`);
  return 0;
}

async function run(config: Config, log: Logger): Promise<number> {
  log.info({ config: configSummary(config) }, 'signing-bridge starting');
  const service = composeService(config, log);
  const stopped = stopOnSignals(service, log);
  exitOnCrash(log);
  try {
    await service.start();
  } catch (error) {
    log.fatal({ err: error }, 'signing-bridge could not start');
    return 1;
  }
  // A signal during start-up stops the start; the service then never became ready.
  if (service.ready) log.info({ healthPort: service.healthPort }, 'signing-bridge running');
  const code = await stopped;
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  return code;
}

/** Resolves with the exit code once a first signal's graceful stop ends; a second forces exit 1. */
function stopOnSignals(service: Service, log: Logger): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting now, without a graceful stop');
        process.exit(1);
      }
      stopping = true;
      log.info({ signal }, 'stopping gracefully');
      service.stop().then(
        () => resolve(0),
        (error: unknown) => {
          log.error({ err: error }, 'graceful stop failed');
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

function exitOnCrash(log: Logger): void {
  const crash = (error: unknown, origin: string) => {
    log.fatal({ err: error, origin }, 'signing-bridge crashed');
    process.exit(1);
  };
  process.on('uncaughtException', (error) => crash(error, 'uncaughtException'));
  process.on('unhandledRejection', (reason) => crash(reason, 'unhandledRejection'));
}
