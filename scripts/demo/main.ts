/**
 * `npm run demo`: the whole bridge on one machine. Starts a Kafka broker, the simulator and the
 * bridge, runs the story (story.ts) while printing every event, then stops everything: the
 * bridge (gracefully), the simulator, the broker. Exit 0 when every command ended as expected.
 */
import { env, stderr, stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { EventPrinter } from './event-printer.js';
import { DemoKafka, EndingsOverdue } from './kafka-io.js';
import { DEMO_APP, type Stack, startStack } from './stack.js';
import { runStory, UnexpectedEndings } from './story.js';

// Generous: on a busy two-core machine the whole story takes a few seconds.
const DEFAULT_TIMEOUT_S = 120;
// What shells report for a command ended by Ctrl-C (128 + SIGINT).
const INTERRUPTED = 130;
// After everything stopped, a handle some library forgot must not keep the process alive.
const EXIT_GRACE_MS = 3_000;

const USAGE = `Usage: npm run demo [-- options]

Runs the bridge end to end on this machine. Starts a local Kafka broker (needs Java 17 and
Maven 3.8+; the first run downloads it), the signing platform simulator with its default
fixtures, and the bridge. Publishes commands of every type for two contracts, plus one
malformed command and one the platform refuses, and prints each event as it arrives. Has the
signatories sign through the simulator, prints a summary, then stops the bridge, the simulator
and the broker. Exits 1 when a command ends otherwise than expected or an event is not there
within the time limit. Ctrl-C stops everything cleanly.

Options:
  --brokers LIST   use this Kafka (host:port, comma-separated) instead of starting one;
                   KAFKA_BROKERS does the same
  --keep-running   leave everything running after the story, print the addresses and the
                   app token and secret to call them with, and wait for Ctrl-C
  --timeout S      how long the story may wait for its events, in seconds (default ${DEFAULT_TIMEOUT_S})
  -h, --help       show this help
`;

const OPTIONS = {
  brokers: { type: 'string' },
  'keep-running': { type: 'boolean' },
  timeout: { type: 'string', default: String(DEFAULT_TIMEOUT_S) },
  help: { type: 'boolean', short: 'h' },
} as const;

interface Options {
  readonly brokers: string[] | undefined;
  readonly keepRunning: boolean;
  readonly timeoutS: number;
}

async function main(argv: string[]): Promise<number> {
  const options = readOptions(argv);
  if (typeof options === 'number') return options;
  const interrupt = stopOnSignals();
  const printer = new EventPrinter((text) => stdout.write(text), stdout.isTTY && !env.NO_COLOR);
  printer.info('signing-bridge demo');
  let stack: Stack;
  try {
    const progress = (line: string) => printer.info(`  ${line}`);
    stack = await startStack({ brokers: options.brokers, signal: interrupt, progress });
  } catch (error) {
    return failed(error, options, interrupt);
  }
  return runOnStack(stack, printer, interrupt, options);
}

/** The options, or the exit code when there is nothing to run (help, a bad option). */
function readOptions(argv: string[]): Options | number {
  try {
    const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true });
    if (values.help) {
      stdout.write(USAGE);
      return 0;
    }
    const timeoutS = Number(values.timeout);
    if (!(timeoutS > 0)) throw new Error(`--timeout takes a number of seconds above 0`);
    const brokers = brokerList(values.brokers ?? env.KAFKA_BROKERS);
    return { brokers, keepRunning: values['keep-running'] === true, timeoutS };
  } catch (error) {
    stderr.write(`demo: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
}

async function runOnStack(
  stack: Stack,
  printer: EventPrinter,
  interrupt: AbortSignal,
  options: Options,
): Promise<number> {
  let io: DemoKafka | undefined;
  let code = 0;
  try {
    io = await DemoKafka.connect({
      brokers: stack.brokers,
      topics: stack.topics,
      log: stack.log,
      onArrival: (arrival) => printer.arrival(arrival),
    });
    const deadline = { at: Date.now() + options.timeoutS * 1000, signal: interrupt };
    const { admin } = stack.simulator;
    await runStory({ io, admin, run: stack.run, deadline, report: printer });
    if (options.keepRunning) {
      printer.info(access(stack));
      await aborted(interrupt);
    }
  } catch (error) {
    code = failed(error, options, interrupt);
  }
  await io?.close();
  printer.info('\nstopping the bridge, the simulator and the broker…');
  try {
    await stack.stop();
  } catch (error) {
    stderr.write(`stopping failed: ${(error as Error).stack ?? String(error)}\n`);
    code ||= 1;
  }
  if (io) printer.summary(io.sent, io.endings, io.deadLetters);
  printer.info(
    code === 0 ? 'demo finished' : code === INTERRUPTED ? 'demo interrupted' : 'demo failed',
  );
  return code;
}

function brokerList(text: string | undefined): string[] | undefined {
  const brokers = (text ?? '').split(',').map((broker) => broker.trim());
  const given = brokers.filter((broker) => broker.length > 0);
  return given.length > 0 ? given : undefined;
}

/** The exit code for what ended the run, after saying what happened on stderr. */
function failed(error: unknown, options: Options, interrupt: AbortSignal): number {
  // The signal may have reached a child process too, which then failed first.
  if (interrupt.aborted) {
    stderr.write('\ninterrupted\n');
    return INTERRUPTED;
  }
  if (error instanceof EndingsOverdue) {
    const waiting = error.commands.join(', ');
    stderr.write(
      `\ndemo timed out after ${options.timeoutS} s: no terminal event for ${waiting}\n`,
    );
  } else if (error instanceof UnexpectedEndings) {
    stderr.write(`\n${error.message}\n`);
  } else {
    stderr.write(`\ndemo failed: ${(error as Error).stack ?? String(error)}\n`);
  }
  return 1;
}

function access(stack: Stack): string {
  const prefix = stack.config.TOPIC_PREFIX;
  const sim = stack.simulator.url;
  const health = `http://127.0.0.1:${stack.service.healthPort}`;
  return [
    '\nEverything keeps running; Ctrl-C stops it. Events keep printing as they arrive.',
    `  kafka      ${stack.brokers.join(',')}`,
    `  topics     ${prefix}commands.<type>, ${prefix}events, ${prefix}dead-letter, ${prefix}ledger`,
    `  simulator  ${sim}  app token ${DEMO_APP.token}, app secret ${DEMO_APP.secret}`,
    `             (signing calls with curl: docs/simulator.md)`,
    `  contracts  curl '${sim}/admin/contracts?bizId=lease-${stack.run}'`,
    `  bridge     ${health}/healthz  ${health}/readyz  ${health}/metrics`,
  ].join('\n');
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** A first signal aborts the run for a clean stop; a second one exits at once. */
function stopOnSignals(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(1);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return controller.signal;
}

const code = await main(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
