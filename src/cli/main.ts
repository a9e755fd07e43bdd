#!/usr/bin/env node
/**
 * The `signing-bridge` command line. Each subcommand lives in its own module, loaded only when
 * it is chosen, so `simulator` never loads kafkajs and `run` never loads the simulator.
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

process.exitCode = await main(process.argv.slice(2));
