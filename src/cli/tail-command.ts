/**
 * `signing-bridge tail`: follows the events topic as a read_committed subscriber (the SDK's),
 * one line per event, until Ctrl-C (SIGINT) or SIGTERM.
 */
import { once } from 'node:events';
import { EVENTS, type EventType } from '../schemas/messages/index.js';
import { type BridgeEvent, EventSubscriber } from '../sdk/index.js';
import { printEvent } from './ops/event-line.js';
import { EXIT } from './ops/exit-codes.js';
import {
  inputInvalid,
  type OperatorContext,
  type OperatorSpec,
  runOperator,
  type Values,
} from './ops/operator.js';
import { parseSince, SINCE_HELP } from './ops/since.js';

const PREFIX = 'signingbridge.';

const USAGE = `Usage: signing-bridge tail [--biz-id X] [--type T] [--from-beginning | --since T] [--json]

Follows the events topic and prints each event as it arrives: time, type, bizId, commandId and
what happened, "(end)" on the event that ends its command. Runs until Ctrl-C or SIGTERM (exit 0).

Options:
  --biz-id X        only the events of bizId X
  --type T          only events of type T (with or without "${PREFIX}"), e.g. command.failed;
                    may be given more than once
  --from-beginning  start at the oldest event the topic holds
  --since T         start at T: ${SINCE_HELP}
                    (default: the events published from now on)
  --json            one JSON object a line: time, type, bizId, commandId, id, terminal,
                    topic, partition, offset, data
  -h, --help        show this help
`;

export const TAIL: OperatorSpec = {
  name: 'tail',
  usage: USAGE,
  options: {
    'biz-id': { type: 'string' },
    type: { type: 'string', multiple: true },
    'from-beginning': { type: 'boolean' },
    since: { type: 'string' },
  },
  run: tail,
};

export function main(argv: string[]): Promise<number> {
  return runOperator(TAIL, argv);
}

async function tail(context: OperatorContext, values: Values, positionals: string[]) {
  if (positionals.length > 0)
    throw inputInvalid('arguments', `unexpected "${positionals.join(' ')}"`);
  if (values['from-beginning'] && values.since !== undefined) {
    throw inputInvalid('--since', 'give --from-beginning or --since, not both');
  }
  const types = eventTypes(values.type as string[] | undefined);
  const bizId = values['biz-id'] as string | undefined;
  const from = values['from-beginning']
    ? 'beginning'
    : values.since === undefined
      ? 'end'
      : parseSince(values.since as string);
  const wanted = (event: BridgeEvent) =>
    (bizId === undefined || event.subject === bizId) &&
    (types === undefined || types.has(event.type));
  await context.connect();
  const subscriber = await EventSubscriber.start(context.connection, {
    topics: context.topics,
    from,
    onEvent: (event) => {
      if (wanted(event)) printEvent(context.out, event);
    },
    onUndecodable: (error) => context.out.note(`skipped: ${error.message}`),
  });
  const where = from instanceof Date ? from.toISOString() : `the ${from}`;
  context.out.note(`following ${context.topics.events} from ${where}; Ctrl-C stops`);
  // The subscriber's end comes first only when its consumer failed: it rejects, and says why.
  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM'), subscriber.done]);
  await subscriber.stop();
  return EXIT.ok;
}

function eventTypes(given: readonly string[] | undefined): Set<EventType> | undefined {
  if (given === undefined) return undefined;
  return new Set(
    given.map((type) => {
      const full = type.startsWith(PREFIX) ? type : `${PREFIX}${type}`;
      if (!(full in EVENTS)) {
        const known = Object.keys(EVENTS).map((t) => t.slice(PREFIX.length));
        throw inputInvalid('--type', `"${type}" is not an event type: ${known.join(', ')}`);
      }
      return full as EventType;
    }),
  );
}
