/**
 * JSON Schemas of every command and event, derived from the zod schemas so that the files
 * under `schemas/` can never say something the code does not enforce.
 */
import { z } from 'zod';
import { EVENTS, type EventType } from '../messages/events.js';
import { COMMANDS } from '../messages/topics.js';

export type JsonSchema = Record<string, unknown>;

/** Commands are read as producers write them (defaults optional); events as we publish them. */
export function commandJsonSchema(type: keyof typeof COMMANDS): JsonSchema {
  return z.toJSONSchema(COMMANDS[type].schema, { target: 'draft-7', io: 'input' });
}

export function eventJsonSchema(type: EventType): JsonSchema {
  return z.toJSONSchema(EVENTS[type].data, { target: 'draft-7', io: 'output' });
}

/** Every generated file, by its path under the repository root. */
export function jsonSchemaFiles(): Map<string, JsonSchema> {
  const files = new Map<string, JsonSchema>();
  for (const type of Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>) {
    files.set(`schemas/commands/${type}.schema.json`, {
      ...commandJsonSchema(type),
      title: `${type} command`,
      description: COMMANDS[type].summary,
    });
  }
  for (const type of Object.keys(EVENTS) as EventType[]) {
    files.set(`schemas/events/${type}.schema.json`, {
      ...eventJsonSchema(type),
      title: type,
      description: EVENTS[type].summary,
    });
  }
  return files;
}
