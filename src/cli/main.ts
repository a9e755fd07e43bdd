#!/usr/bin/env node
/**
 * The `signing-bridge` command line. Each subcommand lives in its own module, loaded only when
 * it is chosen, so `simulator` never loads kafkajs and `run` never loads the simulator. The
 * operator commands (send, tail, history, topics, dlq) are described in docs/cli.md.
 * (The demo is `npm run demo`: it also assembles a local Kafka broker, a development tool.)
 */
import { stderr, stdout } from 'node:process';
import { SimulatorNotInstalled } from '../errors.js';

interface Subcommand {
  readonly summary: string;
  readonly load: () => Promise<{ main(argv: string[]): Promise<number> }>;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  run: {
    summary: 'consume commands, call the signing platform, publish events (the service)',
    load: () => import('./run-command.js'),
  },
  simulator: {
    summary: 'serve a local simulator of the signing platform',
    // Absent from the service image, which leaves the simulator out.
    load: () =>
      import('./simulator-command.js').catch((error: unknown) => {
        throw SimulatorNotInstalled.fromImport(error) ?? error;
      }),
  },
  send: {
    summary: 'check a command against its schema and publish it',
    load: () => import('./send-command.js'),
  },
  tail: {
    summary: 'follow the events as they are published',
    load: () => import('./tail-command.js'),
  },
  history: {
    summary: "every command, event and dead letter of one bizId, and each command's outcome",
    load: () => import('./history-command.js'),
  },
  topics: {
    summary: 'create the topics, or check them against the settings they should have',
    load: () => import('./topics-command.js'),
  },
  dlq: {
    summary: 'list the dead letters, or send them back to their topic once fixed',
    load: () => import('./dlq-command.js'),
  },
  console: {
    summary: 'serve the on-call console in the browser (docs/console.md)',
    load: () => import('./console-command.js'),
  },
};

export function usage(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  const lines = Object.entries(SUBCOMMANDS).map(
    ([name, sub]) => `  ${name.padEnd(width)}  ${sub.summary}`,
  );
  return [
    'Usage: signing-bridge <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `signing-bridge <command> --help` for the options of a command.',
    '',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const sub = SUBCOMMANDS[name];
  if (!sub) {
    stderr.write(`signing-bridge: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  let module: Awaited<ReturnType<Subcommand['load']>>;
  try {
    module = await sub.load();
  } catch (error) {
    if (!(error instanceof SimulatorNotInstalled)) throw error;
    stderr.write(`signing-bridge ${name}: ${error.message}\n`);
    return 1;
  }
  return module.main(rest);
}

// `signing-bridge tail | head`: once the reader is gone, there is nothing left to do.
stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
