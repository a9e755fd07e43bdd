/**
 * `signing-bridge send <type> [--file F | -]`: checks one command against its schema and
 * publishes it as the SDK does (key bizId, murmur2), printing where it went.
 */
import { open } from 'node:fs/promises';
import { stdin } from 'node:process';
import { COMMAND_TYPES, type CommandType } from '../schemas/messages/index.js';
import { type CommandInput, CommandProducer } from '../sdk/index.js';
import { EXIT } from './ops/exit-codes.js';
import {
  inputInvalid,
  type OperatorContext,
  type OperatorSpec,
  runOperator,
  type Values,
} from './ops/operator.js';

/** A command file is JSON text; pretty-printed, it may be larger than the command it holds. */
export const INPUT_MAX_BYTES = 2 * 1024 * 1024;

const USAGE = `Usage: signing-bridge send <type> (--file F | -) [--json]

Checks one command (JSON) against the schema of its type and publishes it on the type's
topic, keyed by its bizId, as the SDK does; prints its commandId, partition and offset (with
--json also its fingerprint, which the command's ending event carries).
A commandId is made up when the command has none. Types: ${COMMAND_TYPES.join(', ')}.

Options:
  -f, --file F  read the command from file F (at most ${INPUT_MAX_BYTES} bytes)
  -             read it from standard input
  --json        print the result as one JSON line
  -h, --help    show this help
`;

export const SEND: OperatorSpec = {
  name: 'send',
  usage: USAGE,
  options: { file: { type: 'string', short: 'f' } },
  run: send,
};

export function main(argv: string[]): Promise<number> {
  return runOperator(SEND, argv);
}

async function send(context: OperatorContext, values: Values, positionals: string[]) {
  const [type, source, ...extra] = positionals;
  const file = typeof values.file === 'string' ? values.file : undefined;
  if (type === undefined || !(COMMAND_TYPES as readonly string[]).includes(type)) {
    throw inputInvalid('<type>', `give a command type: one of ${COMMAND_TYPES.join(', ')}`);
  }
  if (extra.length > 0 || (source !== undefined && source !== '-')) {
    throw inputInvalid('arguments', `unexpected "${[source, ...extra].join(' ')}"`);
  }
  if ((file === undefined) === (source === undefined)) {
    throw inputInvalid('input', 'give the command either with --file F or as - (standard input)');
  }
  const where = file ?? 'standard input';
  const command = parseJson(await readInput(file), where);
  await context.connect();
  const producer = await CommandProducer.connect(context.connection, { topics: context.topics });
  try {
    const sent = await producer.send(type as CommandType, command as CommandInput<CommandType>);
    const human = `sent ${sent.type} ${sent.commandId} (bizId ${sent.bizId}) to ${sent.topic} partition ${sent.partition} offset ${sent.offset}`;
    context.out.result(sent, human);
    return EXIT.ok;
  } finally {
    await producer.close();
  }
}

async function readInput(file: string | undefined): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const source = file === undefined ? stdin : await openFile(file);
  for await (const chunk of source as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > INPUT_MAX_BYTES) {
      throw inputInvalid(file ?? 'standard input', `is over ${INPUT_MAX_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function openFile(file: string): Promise<AsyncIterable<Buffer>> {
  try {
    return (await open(file)).createReadStream();
  } catch (error) {
    throw inputInvalid(file, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

/** JSON.parse, with where the text stops being JSON as a line and column. */
function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    const at = position === undefined ? '' : ` (${lineAndColumn(text, Number(position))})`;
    throw inputInvalid(
      where,
      `is not JSON${at}: ${message.replace(/ in JSON at position \d+.*$/, '')}`,
    );
  }
}

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
