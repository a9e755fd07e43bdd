/**
 * The headers of each message, built from the constants the producers write them with, so the
 * document names exactly the headers a record carries.
 */
import {
  CE_HEADER_DESCRIPTIONS,
  CE_HEADERS,
  CONTENT_TYPE,
  OPTIONAL_CE_HEADERS,
  SPEC_VERSION,
  TRACE_HEADER_DESCRIPTIONS,
  TRACE_HEADERS,
} from '../../producers/cloud-events.js';
import {
  DLQ_HEADER_DESCRIPTIONS,
  DLQ_HEADERS,
  OPTIONAL_DLQ_HEADERS,
} from '../../producers/dead-letter.js';
import { schemaId } from '../messages/contract-version.js';
import type { EventType } from '../messages/events.js';
import type { JsonSchema } from './json-schemas.js';

type Attribute = keyof typeof CE_HEADERS;

/** What is known of a header's value beyond its being text. */
function attributeValue(attribute: Attribute, type: EventType): JsonSchema {
  switch (attribute) {
    case 'specVersion':
      return { const: SPEC_VERSION };
    case 'type':
      return { const: type };
    case 'dataSchema':
      return { const: schemaId('events', type) };
    case 'contentType':
      return { const: CONTENT_TYPE };
    case 'time':
      return { format: 'date-time' };
    default:
      return {};
  }
}

/**
 * An event's headers. ce_subject is there whenever the key is: only a command.rejected of a
 * record without key and readable bizId lacks both. The trace headers are there when the bridge
 * traces.
 */
export function cloudEventHeaders(type: EventType): JsonSchema {
  const attributes = Object.keys(CE_HEADERS) as Attribute[];
  const mayLackSubject = type === 'signingbridge.command.rejected';
  const required = attributes.filter(
    (attribute) => !(mayLackSubject && OPTIONAL_CE_HEADERS.includes(attribute)),
  );
  return {
    type: 'object',
    properties: Object.fromEntries([
      ...attributes.map((attribute) => [
        CE_HEADERS[attribute],
        {
          type: 'string',
          description: CE_HEADER_DESCRIPTIONS[attribute],
          ...attributeValue(attribute, type),
        },
      ]),
      ...TRACE_HEADERS.map((name) => [
        name,
        { type: 'string', description: TRACE_HEADER_DESCRIPTIONS[name] },
      ]),
    ]),
    required: required.map((attribute) => CE_HEADERS[attribute]),
  };
}

/** A dead letter keeps the command record's own headers (when within the limits) and adds these. */
export function deadLetterHeaders(): JsonSchema {
  const names = Object.keys(DLQ_HEADERS) as Array<keyof typeof DLQ_HEADERS>;
  const format = (name: keyof typeof DLQ_HEADERS) =>
    name === 'failedAt' || name === 'sourceTimestamp' ? { format: 'date-time' } : {};
  return {
    type: 'object',
    description:
      "The original record's headers (left out when over the input limits; dlq-truncated says so), and these.",
    properties: Object.fromEntries(
      names.map((name) => [
        DLQ_HEADERS[name],
        { type: 'string', description: DLQ_HEADER_DESCRIPTIONS[name], ...format(name) },
      ]),
    ),
    required: names
      .filter((name) => !OPTIONAL_DLQ_HEADERS.includes(name))
      .map((name) => DLQ_HEADERS[name]),
  };
}
