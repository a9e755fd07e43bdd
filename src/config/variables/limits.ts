import { defaultBridgeSettings } from '../../consumers/settings.js';
import { MAX_DECODED_HEADERS } from '../../kafka/header-guard.js';
import { integer } from '../parsers.js';
import type { Variable } from '../variable.js';

/** The engine's own defaults: the table states them, it does not restate them. */
const { record, json } = defaultBridgeSettings().limits;

/**
 * What one command record may hold. Each is checked before the record is decoded; a record over
 * one is rejected (command.rejected naming the variable, and a dead-letter copy).
 */
export const LIMITS = [
  {
    name: 'RECORD_MAX_KEY_BYTES',
    group: 'Limits',
    // A valid key is a bizId of at most 200 characters; kafkajs' partitioner hashes a key in
    // time quadratic in its length, so longer keys are never written anywhere.
    schema: integer({ min: 1, max: 4_096 }),
    default: String(record.maxKeyBytes),
    description:
      "A command record's key (its bizId), in bytes; a dead-letter copy of a record with a longer key carries an excerpt of it.",
  },
  {
    name: 'RECORD_MAX_VALUE_BYTES',
    group: 'Limits',
    schema: integer({ min: 1_024, max: 16 * 1_048_576 }),
    default: String(record.maxValueBytes),
    description: "A command record's value (the JSON command), in bytes.",
  },
  {
    name: 'RECORD_MAX_HEADERS',
    group: 'Limits',
    schema: integer({ min: 0, max: MAX_DECODED_HEADERS - 24 }),
    default: String(record.maxHeaders),
    description: 'Headers on a command record (a repeated key counts once per value).',
  },
  {
    name: 'RECORD_MAX_HEADER_BYTES',
    group: 'Limits',
    schema: integer({ min: 0, max: 1_048_576 }),
    default: String(record.maxHeaderBytes),
    description: "The keys and values of a command record's headers together, in bytes.",
  },
  {
    name: 'COMMAND_MAX_DEPTH',
    group: 'Limits',
    schema: integer({ min: 8, max: 256 }),
    default: String(json.maxDepth),
    description: 'Nesting of arrays and objects in a command.',
  },
  {
    name: 'COMMAND_MAX_ARRAY_ITEMS',
    group: 'Limits',
    schema: integer({ min: 50, max: 100_000 }),
    default: String(json.maxArrayItems),
    description:
      'Items of any one array in a command (the schemas set lower limits where the platform spec gives one).',
  },
  {
    name: 'COMMAND_MAX_NODES',
    group: 'Limits',
    schema: integer({ min: 1_000, max: 10_000_000 }),
    default: String(json.maxNodes),
    description: 'Values of every kind in one command (objects, arrays, strings, numbers, ...).',
  },
] as const satisfies readonly Variable[];
