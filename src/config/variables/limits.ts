import { defaultBridgeSettings } from '../../consumers/settings.js';
import { integer } from '../parsers.js';
import type { Variable } from '../variable.js';

/** The engine's own limits: the table states them, it does not restate them. */
const { record, json } = defaultBridgeSettings().limits;

/**
 * What one command record may hold. Only the value's size is a setting: it follows the command
 * topics' max.message.bytes, which a deployment may raise for larger inline files. The other
 * limits protect the process whatever the topics allow, so they are fixed.
 */
export const LIMITS = [
  {
    name: 'RECORD_MAX_VALUE_BYTES',
    group: 'Limits',
    schema: integer({ min: 1_024, max: 16 * 1_048_576 }),
    default: String(record.maxValueBytes),
    description: `A command record's value (the JSON command), in bytes, checked before it is decoded; a record over it is rejected (command.rejected naming RECORD_MAX_VALUE_BYTES, and a dead-letter copy). The rest of a record has fixed limits, named the same way when passed: key ${record.maxKeyBytes} bytes (RECORD_MAX_KEY_BYTES), ${record.maxHeaders} headers (RECORD_MAX_HEADERS) of ${record.maxHeaderBytes} bytes together (RECORD_MAX_HEADER_BYTES), JSON nested ${json.maxDepth} deep (COMMAND_MAX_DEPTH), ${json.maxArrayItems} items per array (COMMAND_MAX_ARRAY_ITEMS), ${json.maxNodes} values in all (COMMAND_MAX_NODES); docs/design.md, "Bounded input and output".`,
  },
] as const satisfies readonly Variable[];
