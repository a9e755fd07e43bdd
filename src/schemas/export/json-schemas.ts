/**
 * JSON Schemas (2020-12) of every command and event, derived from the zod schemas so that the
 * files under `schemas/` can never say something the code does not enforce.
 *
 * - Commands are strict (`additionalProperties: false` throughout), as the bridge reads them:
 *   a field it does not know is refused.
 * - Events are open: a later release may add fields, so a subscriber's generated model must
 *   accept properties it does not know. The bridge publishes only the fields declared.
 */
import { z } from 'zod';
import { schemaId } from '../messages/contract-version.js';
import { EVENTS, type EventType, PERSONAL_DATA_NOTE } from '../messages/events.js';
import { COMMAND_EXAMPLES, EVENT_EXAMPLES } from '../messages/examples.js';
import { COMMANDS } from '../messages/topics.js';

export type JsonSchema = Record<string, unknown>;
export type CommandKind = keyof typeof COMMANDS;

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Which fields are read, which are written, and how unknown fields are met. */
export const COMMAND_NOTE =
  'Strict: a field not declared here makes the bridge refuse the command (dead letter and command.rejected).';
export const EVENT_NOTE =
  'Open: later releases may add properties; read the ones you know and ignore the others.';

/**
 * The files are JSON Schema 2020-12; the AsyncAPI document embeds draft-07, the dialect its
 * Schema Object extends. Both are rendered from the same zod schema with the same rules.
 */
export type Dialect = 'draft-2020-12' | 'draft-7';

/** A command's schema as producers write it (defaults optional), without `$schema`. */
export function commandSchemaBody(type: CommandKind, target: Dialect): JsonSchema {
  const { $schema: _, ...body } = z.toJSONSchema(COMMANDS[type].schema, { target, io: 'input' });
  return body;
}

/** An event's data schema as published, every object open to properties added later. */
export function eventSchemaBody(type: EventType, target: Dialect): JsonSchema {
  const { $schema: _, ...body } = z.toJSONSchema(EVENTS[type].data, {
    target,
    io: 'output',
    override: ({ jsonSchema }) => {
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
    },
  });
  return body;
}

export const commandDescription = (type: CommandKind) =>
  `${COMMANDS[type].summary}. ${COMMAND_NOTE}`;
export const eventDescription = (type: EventType) =>
  `${EVENTS[type].summary}. ${PERSONAL_DATA_NOTE} ${EVENT_NOTE}`;

export function commandJsonSchema(type: CommandKind): JsonSchema {
  return {
    $schema: DIALECT,
    $id: schemaId('commands', type),
    title: `${type} command`,
    description: commandDescription(type),
    ...commandSchemaBody(type, 'draft-2020-12'),
    examples: [COMMAND_EXAMPLES[type]],
  };
}

export function eventJsonSchema(type: EventType): JsonSchema {
  return {
    $schema: DIALECT,
    $id: schemaId('events', type),
    title: type,
    description: eventDescription(type),
    ...eventSchemaBody(type, 'draft-2020-12'),
    examples: [EVENT_EXAMPLES[type]],
  };
}

/** Every generated file, by its path under the repository root. */
export function jsonSchemaFiles(): Map<string, JsonSchema> {
  const files = new Map<string, JsonSchema>();
  for (const type of Object.keys(COMMANDS) as CommandKind[]) {
    files.set(`schemas/commands/${type}.schema.json`, commandJsonSchema(type));
  }
  for (const type of Object.keys(EVENTS) as EventType[]) {
    files.set(`schemas/events/${type}.schema.json`, eventJsonSchema(type));
  }
  return files;
}
