/**
 * What every operator command (send, tail, history, topics, dlq) shares: strict options with
 * --help and --json, the service's Kafka settings from the same environment variables as `run`
 * (through the same function), human lines on a terminal or JSON lines with --json, and errors
 * turned into one message on stderr and a documented exit code.
 */
import { stderr, stdout } from 'node:process';
import { type ParseArgsConfig, parseArgs, styleText } from 'node:util';
import pino from 'pino';
import { kafkaConnectionOptions, topics } from '../../config/component-settings.js';
import {
  KAFKA_GROUPS,
  type KafkaConfig,
  loadKafkaConfig,
  renderConfigHelp,
} from '../../config/index.js';
import {
  CommandRefused,
  ConfigInvalid,
  OperatorInputInvalid,
  SigningBridgeError,
  SubscriberUnavailable,
} from '../../errors.js';
import {
  createKafkaConnection,
  type KafkaConnectionOptions,
  type KafkaTools,
} from '../../kafka/index.js';
import type { TopicNames } from '../../schemas/messages/index.js';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | Array<string | boolean> | undefined>;

export interface OperatorSpec {
  /** As typed after `signing-bridge`, e.g. `topics`. */
  readonly name: string;
  /** Synopsis, what it does and its options (--json and --help are added). */
  readonly usage: string;
  readonly options: OptionsConfig;
  run(context: OperatorContext, values: Values, positionals: string[]): Promise<number>;
}

export interface OperatorContext {
  readonly config: KafkaConfig;
  readonly topics: TopicNames;
  readonly out: Output;
  /** How the service itself reaches Kafka, from the same variables. */
  readonly connection: KafkaConnectionOptions;
  /**
   * Kafka, once a first connection logged in as every later one will: a TLS or SASL refusal, or
   * no broker answering, is one named error (exit 4) rather than kafkajs retrying.
   */
  connect(): Promise<KafkaTools>;
}

const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionsConfig;

export async function runOperator(spec: OperatorSpec, argv: string[]): Promise<number> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...spec.options, ...COMMON_OPTIONS },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    stderr.write(`signing-bridge ${spec.name}: ${(error as Error).message}\n\n${spec.usage}`);
    return EXIT.badInput;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    stdout.write(`${spec.usage}\n${EXIT_CODES_HELP}\n${environmentHelp()}`);
    return EXIT.ok;
  }
  try {
    const config = loadKafkaConfig(process.env);
    const connection = kafkaConnectionOptions(config, pino({ level: 'silent' }));
    let connected: Promise<KafkaTools> | undefined;
    const context: OperatorContext = {
      config,
      topics: topics(config),
      out: new Output(values.json === true),
      connection,
      connect: () => {
        connected ??= (async () => {
          const kafka = createKafkaConnection(connection);
          await kafka.preflight();
          return kafka;
        })();
        return connected;
      },
    };
    return await spec.run(context, values, positionals);
  } catch (error) {
    const failure = asFailure(error);
    if (!failure) throw error;
    stderr.write(`signing-bridge ${spec.name}: ${failure.message}\n`);
    return failure.code;
  }
}

/** Bad input, said as where it is and what is wrong with it. */
export function inputInvalid(where: string, problem: string): OperatorInputInvalid {
  return new OperatorInputInvalid(`${where}: ${problem}`, { details: { where } });
}

function environmentHelp(): string {
  return `Environment variables (the service's own; unset or empty: the default):\n\n${renderConfigHelp(KAFKA_GROUPS)}`;
}

/** What the operator is told, and the exit code; undefined for a bug, which is thrown on. */
function asFailure(error: unknown): { message: string; code: number } | undefined {
  if (error instanceof OperatorInputInvalid) return { message: error.message, code: EXIT.badInput };
  if (error instanceof CommandRefused) {
    const fields = error.details.fields.map((f) => `\n  ${f.path}: ${f.rule}`).join('');
    return {
      message: `${error.details.commandType} command not sent:${fields}`,
      code: EXIT.badInput,
    };
  }
  if (error instanceof ConfigInvalid) return { message: error.message, code: EXIT.badConfig };
  const kafka =
    (error instanceof SigningBridgeError && error.code.startsWith('SB_ERR_KAFKA_')) ||
    error instanceof SubscriberUnavailable ||
    /^KafkaJS/.test((error as Error)?.name ?? '');
  if (kafka) {
    const { message, cause } = error as Error;
    const why =
      cause instanceof Error && !message.includes(cause.message) ? ` (${cause.message})` : '';
    return { message: `Kafka: ${message}${why}`, code: EXIT.kafkaFailed };
  }
  return undefined;
}

export type Style = Parameters<typeof styleText>[0];

/** Human lines on stdout, or one JSON object a line with --json; notes and problems on stderr. */
export class Output {
  readonly json: boolean;
  readonly #color: boolean;

  constructor(json: boolean) {
    this.json = json;
    this.#color = !json && stdout.isTTY === true && !process.env.NO_COLOR;
  }

  /** One result. */
  result(record: object, human: string): void {
    stdout.write(`${this.json ? JSON.stringify(record) : human}\n`);
  }

  /** A heading between results, for people only: not printed with --json. */
  heading(text: string): void {
    if (!this.json) stdout.write(`${this.style('bold', text)}\n`);
  }

  /** Something for the person at the terminal only (what is being done), on stderr. */
  note(text: string): void {
    stderr.write(`${text}\n`);
  }

  style(style: Style, text: string): string {
    return this.#color ? styleText(style, text) : text;
  }
}
