/**
 * `signing-bridge console`: the on-call console in the browser (docs/console.md), a process of
 * its own beside the bridge. It reads Kafka (the group, the topics) and the instances' /status,
 * and writes only when an operator sends dead letters back. It reads the same Kafka variables as
 * every operator command, and its own CONSOLE_* ones; without CONSOLE_AUTH it does not start.
 */
import { once } from 'node:events';
import { stdout } from 'node:process';
import {
  CONSOLE_VARIABLES,
  type ConsoleConfig,
  configSummary,
  loadConsoleConfig,
  renderConfigHelp,
} from '../config/index.js';
import { createLogger } from '../observability/logger.js';
import { Auth, type AuthSettings } from './console/auth.js';
import { ConsoleKafka } from './console/console-kafka.js';
import { startConsoleServer } from './console/server.js';
import { EXIT } from './ops/exit-codes.js';
import {
  type OperatorContext,
  type OperatorSpec,
  runOperator,
  type Values,
} from './ops/operator.js';

const USAGE = `Usage: signing-bridge console [--check-config]

Serves the on-call console on CONSOLE_PORT: the consumer group and each instance (live), a
contract's story by bizId or commandId, failures over time and the commands to settle, and the
dead letters, which an operator may send back to their topic. Every page needs a sign-in
(CONSOLE_AUTH); SIGTERM or SIGINT stops it.

Options:
  --check-config  check the configuration, print it (secrets masked) and exit
  -h, --help      show this help

Its own variables (besides the Kafka and Topics ones below):

${renderConfigHelp(['Console'], CONSOLE_VARIABLES)}`;

export const CONSOLE: OperatorSpec = {
  name: 'console',
  usage: USAGE,
  options: { 'check-config': { type: 'boolean' } },
  run: serve,
};

export function main(argv: string[]): Promise<number> {
  return runOperator(CONSOLE, argv);
}

async function serve(context: OperatorContext, values: Values): Promise<number> {
  const config = loadConsoleConfig(process.env);
  if (values['check-config']) {
    stdout.write(`${JSON.stringify(configSummary(config, CONSOLE_VARIABLES), null, 2)}\n`);
    return EXIT.ok;
  }
  const log = createLogger({ level: 'info', headerPrefix: 'x-svc-open-' }).child({
    component: 'console',
  });
  const tools = await context.connect();
  const kafka = new ConsoleKafka(tools, context.topics, context.connection);
  const server = await startConsoleServer(
    { config, kafka, tools, log },
    new Auth(authSettings(config)),
  );
  await Promise.race([once(process, 'SIGTERM'), once(process, 'SIGINT')]);
  log.info('console stopping');
  await server.close();
  await kafka.close();
  return EXIT.ok;
}

function authSettings(config: ConsoleConfig): AuthSettings {
  if (config.CONSOLE_AUTH === 'proxy') {
    return {
      mode: 'proxy',
      userHeader: config.CONSOLE_PROXY_USER_HEADER,
      groupsHeader: config.CONSOLE_PROXY_GROUPS_HEADER,
      operators: config.CONSOLE_OPERATORS,
    };
  }
  return {
    mode: 'token',
    tokens: config.CONSOLE_TOKENS_FILE?.tokens ?? [],
    sessionMs: config.CONSOLE_SESSION,
  };
}
